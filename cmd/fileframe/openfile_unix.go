//go:build unix

package main

import "syscall"

// openNoWait is the open flag that keeps opening a named pipe with no
// writer from blocking (the file is refused afterwards as not regular).
const openNoWait = syscall.O_NONBLOCK
