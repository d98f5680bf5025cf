package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/fileframe/fileframe/internal/client"
	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/password"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

const usageText = `Fileframe: file sharing with custom download pages.

Usage:
  fileframe serve [--addr 127.0.0.1:8080] [--data ./data] [--base-url URL]
                  [--content-origin URL] [--content-addr ADDR] [...]
  fileframe account create --email E [--password P] [--plan free|pro|agency] [--admin] [--json]
  fileframe account set-plan --email E --plan PLAN [--json]
  fileframe file add --email E PATH [--name NAME] [--expires DURATION|RFC3339]
                  [--max-downloads N] [--one-time] [--password P | --password-file F]
                  [--remove-when-ended] [--reveal name|nothing] [--json]
  fileframe file set --email E FILE_ID [the link flags of file add]
                  [--no-expiry] [--no-password] [--keep-when-ended] [--json]
  fileframe file delete --email E FILE_ID [--json]
  fileframe collection create --email E [--name N] FILE_ID... [--base-url URL] [--json]
  fileframe collection add --email E COLLECTION_ID FILE_ID... [--json]
  fileframe collection remove --email E COLLECTION_ID FILE_ID [--json]
  fileframe collection show --email E COLLECTION_ID [--json]
  fileframe key create --email E [--file FILE_ID] [--name N] [--expires DURATION] [--json]
  fileframe key revoke --email E KEY_ID [--json]
  fileframe request create --email E --title T [--message M] [--max-files N]
                  [--max-size SIZE] [--expires DURATION] [--password-file F] [--json]
  fileframe request list --email E [--json]
  fileframe request show --email E REQUEST_ID [--json]
  fileframe migrate [--json]
  fileframe version

Every command above but version takes --data DIR (default ./data, or $FILEFRAME_DATA)
and the same flags as serve for PostgreSQL (--database-url) and S3 (--s3-bucket, ...),
and works while servers run on the same data.

Client commands (talk to a server over HTTP):
  fileframe remote upload PATH [--name N] [--expires DURATION|RFC3339] [--max-downloads N]
                  [--one-time] [--password P | --password-file F] [--json]
  fileframe remote files [--limit N] [--all] [--json]
  fileframe remote file FILE_ID [--json]
  fileframe remote rename FILE_ID NAME [--json]
  fileframe remote set FILE_ID [the link flags of file set] [--json]
  fileframe remote delete FILE_ID [--json]
  fileframe remote check PAGE.html [--json]
  fileframe remote publish FILE_ID PAGE.html [--draft] [--json]
  fileframe remote page FILE_ID [--json]
  fileframe remote revisions FILE_ID [--limit N] [--all] [--json]
  fileframe remote unpublish FILE_ID [--json]
  fileframe remote restore FILE_ID REV [--publish] [--json]
  fileframe remote refetch FILE_ID REV [--json]

They never open a database: they need the server's address and an API key,
from $FILEFRAME_URL and $FILEFRAME_KEY or --url and --key. remote upload
resumes where an interrupted run of the same command stopped.

Agents:
  fileframe mcp [--url URL] [--key KEY]
                  serve a server's MCP tools on stdin/stdout for a local agent,
                  forwarding each call to URL/mcp with the API key
                  (default $FILEFRAME_URL and $FILEFRAME_KEY; takes no --data)

Run 'fileframe COMMAND -h' for a command's flags.
`

// CLI runs one fileframe command. Its fields are the process's streams and
// environment, so tests can run commands in-process.
type CLI struct {
	// Stdin is read by `fileframe mcp` only; nil reads nothing.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Env            lookupEnv
	// Passwords hashes the passwords of account create under its memory
	// budget, as serve's does; nil means password's defaults.
	Passwords *password.Hasher
	// HTTPClient sends the client commands' requests; nil means one with
	// http.DefaultTransport.
	HTTPClient *http.Client
	// CacheDir is where remote upload keeps the state of unfinished
	// uploads (under fileframe/uploads); "" means os.UserCacheDir().
	CacheDir string
}

// passwords returns c.Passwords, or a Hasher with password's defaults.
func (c *CLI) passwords() (*password.Hasher, error) {
	if c.Passwords != nil {
		return c.Passwords, nil
	}
	return password.NewHasher(password.DefaultParams(), password.Budget{})
}

// stdin returns c.Stdin, or an empty reader.
func (c *CLI) stdin() io.Reader {
	if c.Stdin == nil {
		return strings.NewReader("")
	}
	return c.Stdin
}

// usageError is a mistake in the command line: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// fileIDArg refuses s, given as the argument called name (FILE_ID,
// --file), unless it has the shape of a file ID: a usage error (exit 2)
// before anything is asked of the store or the server. "." or ".." would
// name another path once a router cleans it; any other shape names no
// file.
func fileIDArg(name, s string) error {
	if !fileframe.LooksLikeFileID(s) {
		return usagef("%s %q is not a file ID: f_ and letters and digits, as `fileframe file add` prints them and `fileframe remote files` lists them", name, s)
	}
	return nil
}

// command is one subcommand: its name as typed and its function.
type command struct {
	name string
	run  func(ctx context.Context, c *CLI, fs *flag.FlagSet, args []string) error
}

// commands lists the subcommands; the longest names come first where one
// is a prefix of another.
func commands() []command {
	return []command{
		{"serve", runServe},
		{"account create", runAccountCreate},
		{"account set-plan", runAccountSetPlan},
		{"file add", runFileAdd},
		{"file set", runFileSet},
		{"file delete", runFileDelete},
		{"collection create", runCollectionCreate},
		{"collection add", runCollectionAdd},
		{"collection remove", runCollectionRemove},
		{"collection show", runCollectionShow},
		{"key create", runKeyCreate},
		{"key revoke", runKeyRevoke},
		{"request create", runRequestCreate},
		{"request list", runRequestList},
		{"request show", runRequestShow},
		{"migrate", runMigrate},
		{"mcp", runMCP},
		{"version", runVersion},
		{"remote upload", runRemoteUpload},
		{"remote files", runRemoteFiles},
		{"remote file", runRemoteFile},
		{"remote rename", runRemoteRename},
		{"remote set", runRemoteSet},
		{"remote delete", runRemoteDelete},
		{"remote check", runRemoteCheck},
		{"remote publish", runRemotePublish},
		{"remote page", runRemotePage},
		{"remote revisions", runRemoteRevisions},
		{"remote unpublish", runRemoteUnpublish},
		{"remote restore", runRemoteRestore},
		{"remote refetch", runRemoteRefetch},
	}
}

// Run runs the command in args and returns the process's exit status.
func (c *CLI) Run(ctx context.Context, args []string) int {
	if len(args) == 0 {
		fmt.Fprint(c.Stderr, usageText)
		return exitUsage
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		fmt.Fprint(c.Stdout, usageText)
		return exitOK
	}
	cmd, rest, ok := findCommand(args)
	if !ok {
		name := args[0]
		if len(args) > 1 && (name == "account" || name == "file" || name == "collection" || name == "key" || name == "request" || name == "remote") {
			name += " " + args[1]
		}
		fmt.Fprintf(c.Stderr, "fileframe: unknown command %q\n\n%s", name, usageText)
		return exitUsage
	}
	fs := flag.NewFlagSet("fileframe "+cmd.name, flag.ContinueOnError)
	fs.SetOutput(c.Stderr)
	err := cmd.run(ctx, c, fs, rest)
	var ue *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.Is(err, errFlagParse):
		// The flag package has printed the error and the usage.
		return exitUsage
	case errors.As(err, &ue):
		fmt.Fprintf(c.Stderr, "fileframe %s: %s\nRun 'fileframe %s -h' for usage.\n", cmd.name, ue.msg, cmd.name)
		return exitUsage
	}
	fmt.Fprintf(c.Stderr, "fileframe %s: %s\n", cmd.name, termText(errorText(err)))
	return exitError
}

// findCommand matches the longest command name at the start of args.
func findCommand(args []string) (command, []string, bool) {
	for _, cmd := range commands() {
		words := strings.Fields(cmd.name)
		if len(args) >= len(words) && strings.Join(args[:len(words)], " ") == cmd.name {
			return cmd, args[len(words):], true
		}
	}
	return command{}, nil, false
}

// errorText is what the operator sees for err: the user-safe message of a
// *fileframe.Error, else the error with the context it was wrapped in.
func errorText(err error) string {
	var ce *client.Error
	if errors.As(err, &ce) {
		return remoteErrorText(err, ce)
	}
	var fe *fileframe.Error
	if errors.As(err, &fe) && fileframe.ErrorCode(err) != fileframe.EINTERNAL {
		return fe.Message
	}
	return err.Error()
}

var errFlagParse = errors.New("bad flags")

// parseArgs parses flags that may come before, between or after positional
// arguments (`file add PATH --name x` and `file add --name x PATH` alike)
// and returns the positional ones. After "--" everything is positional.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, errFlagParse
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// dataPaths returns the database file and the blob directory of a data
// directory.
func dataPaths(dir string) (db, blobs string) {
	return filepath.Join(dir, "fileframe.db"), filepath.Join(dir, "blobs")
}

// baseURL is the app origin used in printed examples: $FILEFRAME_BASE_URL,
// else serve's default.
func (c *CLI) baseURL() string {
	if v, ok := c.Env("FILEFRAME_BASE_URL"); ok && v != "" {
		return strings.TrimSuffix(v, "/")
	}
	return "http://" + defaultAddr
}

// printJSON writes v as one line of JSON.
func (c *CLI) printJSON(v any) error {
	enc := json.NewEncoder(c.Stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// noArgs fails when a command that takes no positional arguments got some.
func noArgs(rest []string) error {
	if len(rest) > 0 {
		return usagef("unexpected argument %q", rest[0])
	}
	return nil
}

func runVersion(_ context.Context, c *CLI, fs *flag.FlagSet, args []string) error {
	rest, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if err := noArgs(rest); err != nil {
		return err
	}
	version := "(devel)"
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		version = info.Main.Version
	}
	fmt.Fprintf(c.Stdout, "fileframe %s %s %s/%s\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}
