module github.com/shardkey/shardkey

go 1.26.8

require (
	github.com/cespare/xxhash/v2 v2.3.0
	golang.org/x/crypto v0.59.0
	vitess.io/vitess v0.24.4
)

require (
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/sys v0.50.0 // indirect
)
