package main

import "errors"

func runExplain(e *env, args []string) error { return errors.New("explain is not built yet") }
