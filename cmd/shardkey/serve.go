package main

import "errors"

func runServe(e *env, args []string) error { return errors.New("serve is not built yet") }
