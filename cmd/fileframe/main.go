// Command fileframe runs the Fileframe service (fileframe serve) and manages
// its accounts, files and API keys from the command line while it runs.
// Run `fileframe help` for the commands.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// After the first signal, a second one kills the process at once.
		<-ctx.Done()
		stop()
	}()
	cli := &CLI{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Env: os.LookupEnv}
	os.Exit(cli.Run(ctx, os.Args[1:]))
}
