//go:build !unix

package main

// openNoWait: no such flag where named pipes are not files.
const openNoWait = 0
