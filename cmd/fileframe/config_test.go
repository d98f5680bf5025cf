package main

import (
	"errors"
	"flag"
	"io"
	"log/slog"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

func envOf(kv ...string) lookupEnv {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

func parseForTest(args []string, env lookupEnv) (ServeConfig, error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return parseServeConfig(fs, args, env)
}

func TestParseServeConfig(t *testing.T) {
	absData, _ := filepath.Abs("./data")
	tests := []struct {
		name  string
		args  []string
		env   lookupEnv
		check func(t *testing.T, c ServeConfig)
	}{
		{"defaults", nil, envOf(), func(t *testing.T, c ServeConfig) {
			want := ServeConfig{
				Addr: "127.0.0.1:8080", ContentAddr: "127.0.0.1:8081", Data: absData,
				LogLevel: slog.LevelInfo, ShutdownTimeout: 30 * time.Second,
				ReadHeaderTimeout: 10 * time.Second, UploadIdleTimeout: time.Minute, PreviewTTL: 24 * time.Hour, CleanupEvery: time.Hour,
				KeyRate: 5, KeyBurst: 100, IPRate: 10, IPBurst: 200, RequestUploadRate: 1, RequestUploadBurst: 20,
				Quotas: defaultQuotas, PasswordHashMemory: 256 << 20, Stats: true, StatsRetentionDays: 400,
			}
			if !reflect.DeepEqual(c, want) {
				t.Errorf("got %+v\nwant %+v", c, want)
			}
		}},
		{"flags", []string{"--addr", "0.0.0.0:9000", "--data", "/srv/ff", "--log-level", "debug",
			"--shutdown-timeout", "5s", "--read-header-timeout=2s", "--upload-idle-timeout", "30s", "--preview-ttl", "1h", "--cleanup-every", "10m",
			"--key-rate", "2.5", "--key-burst", "7", "--ip-rate", "3", "--ip-burst", "9", "--fetch-private", "--fetch-ca", "/srv/ca.pem"}, envOf(),
			func(t *testing.T, c ServeConfig) {
				want := ServeConfig{
					Addr: "0.0.0.0:9000", ContentAddr: "0.0.0.0:9001", Data: "/srv/ff",
					LogLevel: slog.LevelDebug, ShutdownTimeout: 5 * time.Second,
					ReadHeaderTimeout: 2 * time.Second, UploadIdleTimeout: 30 * time.Second, PreviewTTL: time.Hour, CleanupEvery: 10 * time.Minute,
					KeyRate: 2.5, KeyBurst: 7, IPRate: 3, IPBurst: 9, RequestUploadRate: 1, RequestUploadBurst: 20,
					Quotas: defaultQuotas, PasswordHashMemory: 256 << 20, Stats: true, StatsRetentionDays: 400, FetchPrivate: true, FetchCA: "/srv/ca.pem",
				}
				if !reflect.DeepEqual(c, want) {
					t.Errorf("got %+v\nwant %+v", c, want)
				}
			}},
		{"quotas", []string{"--quota-free-storage", "500MB", "--quota-free-file=0", "--quota-agency-file", "2 GiB", "--quota-free-files", "0", "--quota-agency-files", "250_000"},
			envOf("FILEFRAME_QUOTA_PRO_STORAGE", "1TiB", "FILEFRAME_QUOTA_FREE_STORAGE", "1GiB", "FILEFRAME_QUOTA_PRO_FILES", "20,000"),
			func(t *testing.T, c ServeConfig) {
				want := defaultQuotas
				want.Free = fileframe.Quota{Storage: 500_000_000, File: 0, Files: 0}
				want.Pro.Storage, want.Pro.Files = 1<<40, 20_000
				want.Agency.File, want.Agency.Files = 2<<30, 250_000
				if c.Quotas != want {
					t.Errorf("got %+v, want %+v", c.Quotas, want)
				}
			}},
		{"env", nil, envOf(
			"FILEFRAME_ADDR", "127.0.0.1:7000", "FILEFRAME_DATA", "/var/lib/ff",
			"FILEFRAME_BASE_URL", "https://Files.Example.com/", "FILEFRAME_CONTENT_ORIGIN", "https://usercontent.example.net",
			"FILEFRAME_CONTENT_ADDR", "127.0.0.1:7100", "FILEFRAME_LOG_LEVEL", "WARN",
			"FILEFRAME_SHUTDOWN_TIMEOUT", "1m", "FILEFRAME_READ_HEADER_TIMEOUT", "3s", "FILEFRAME_PREVIEW_TTL", "2h",
			"FILEFRAME_KEY_RATE", "1", "FILEFRAME_KEY_BURST", "2", "FILEFRAME_IP_RATE", "3", "FILEFRAME_IP_BURST", "4"),
			func(t *testing.T, c ServeConfig) {
				if c.Addr != "127.0.0.1:7000" || c.Data != "/var/lib/ff" || c.ContentAddr != "127.0.0.1:7100" {
					t.Errorf("addr, data, content addr = %q, %q, %q", c.Addr, c.Data, c.ContentAddr)
				}
				if got := c.BaseURL.String(); got != "https://files.example.com" {
					t.Errorf("BaseURL = %q, want https://files.example.com", got)
				}
				if got := c.ContentOrigin.String(); got != "https://usercontent.example.net" {
					t.Errorf("ContentOrigin = %q", got)
				}
				if c.LogLevel != slog.LevelWarn || c.ShutdownTimeout != time.Minute || c.ReadHeaderTimeout != 3*time.Second || c.PreviewTTL != 2*time.Hour {
					t.Errorf("level, timeouts = %v, %v, %v, %v", c.LogLevel, c.ShutdownTimeout, c.ReadHeaderTimeout, c.PreviewTTL)
				}
				if c.KeyRate != 1 || c.KeyBurst != 2 || c.IPRate != 3 || c.IPBurst != 4 {
					t.Errorf("rates = %v %v %v %v", c.KeyRate, c.KeyBurst, c.IPRate, c.IPBurst)
				}
			}},
		{"trusted proxies", nil, envOf("FILEFRAME_TRUSTED_PROXIES", "10.0.0.0/8, 192.168.1.7,::1,10.1.2.3/16"),
			func(t *testing.T, c ServeConfig) {
				want := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.168.1.7/32"),
					netip.MustParsePrefix("::1/128"), netip.MustParsePrefix("10.1.0.0/16")}
				if !reflect.DeepEqual(c.TrustedProxies, want) {
					t.Errorf("TrustedProxies = %v, want %v", c.TrustedProxies, want)
				}
			}},
		{"flag beats env", []string{"--addr", "127.0.0.1:6000", "--key-burst", "11"},
			envOf("FILEFRAME_ADDR", "127.0.0.1:7000", "FILEFRAME_KEY_BURST", "22", "FILEFRAME_IP_BURST", "33"),
			func(t *testing.T, c ServeConfig) {
				if c.Addr != "127.0.0.1:6000" || c.ContentAddr != "127.0.0.1:6001" {
					t.Errorf("Addr, ContentAddr = %q, %q; want the flag's", c.Addr, c.ContentAddr)
				}
				if c.KeyBurst != 11 || c.IPBurst != 33 {
					t.Errorf("KeyBurst, IPBurst = %d, %d; want 11 (flag), 33 (env)", c.KeyBurst, c.IPBurst)
				}
			}},
		{"password hash memory", []string{"--password-hash-memory", "1GiB"}, envOf("FILEFRAME_PASSWORD_HASH_MEMORY", "128MiB"),
			func(t *testing.T, c ServeConfig) {
				if c.PasswordHashMemory != 1<<30 {
					t.Errorf("PasswordHashMemory = %d, want 1 GiB from the flag", c.PasswordHashMemory)
				}
			}},
		{"password hash memory env", nil, envOf("FILEFRAME_PASSWORD_HASH_MEMORY", "128MiB"), func(t *testing.T, c ServeConfig) {
			if c.PasswordHashMemory != 128<<20 {
				t.Errorf("PasswordHashMemory = %d, want 128 MiB from the variable", c.PasswordHashMemory)
			}
		}},
		{"signup flag", []string{"--signup", "open"}, envOf(), func(t *testing.T, c ServeConfig) {
			if !c.Signup {
				t.Errorf("Signup = false, want true from --signup open")
			}
		}},
		{"webhook private flag", []string{"--webhook-private"}, envOf(), func(t *testing.T, c ServeConfig) {
			if !c.WebhookPrivate {
				t.Errorf("WebhookPrivate = false, want true from --webhook-private")
			}
		}},
		{"webhook private env", nil, envOf("FILEFRAME_WEBHOOK_PRIVATE", "true"), func(t *testing.T, c ServeConfig) {
			if !c.WebhookPrivate {
				t.Errorf("WebhookPrivate = false, want true from FILEFRAME_WEBHOOK_PRIVATE=true")
			}
		}},
		{"webhook private off by default", nil, envOf(), func(t *testing.T, c ServeConfig) {
			if c.WebhookPrivate {
				t.Errorf("WebhookPrivate = true by default")
			}
		}},
		{"signup env", nil, envOf("FILEFRAME_SIGNUP", "open"), func(t *testing.T, c ServeConfig) {
			if !c.Signup {
				t.Errorf("Signup = false, want true from FILEFRAME_SIGNUP=open")
			}
		}},
		{"signup flag beats env", []string{"--signup", "closed"}, envOf("FILEFRAME_SIGNUP", "open"), func(t *testing.T, c ServeConfig) {
			if c.Signup {
				t.Errorf("Signup = true, want false from --signup closed")
			}
		}},
		{"empty env is unset", nil, envOf("FILEFRAME_ADDR", "", "FILEFRAME_BASE_URL", ""),
			func(t *testing.T, c ServeConfig) {
				if c.Addr != defaultAddr || c.BaseURL != nil {
					t.Errorf("Addr, BaseURL = %q, %v; want the defaults", c.Addr, c.BaseURL)
				}
			}},
		{"port 0", []string{"--addr", "127.0.0.1:0"}, envOf(), func(t *testing.T, c ServeConfig) {
			if c.ContentAddr != "127.0.0.1:0" {
				t.Errorf("ContentAddr = %q, want 127.0.0.1:0", c.ContentAddr)
			}
		}},
		{"any host port 0", []string{"--addr", ":0"}, envOf(), func(t *testing.T, c ServeConfig) {
			if c.ContentAddr != ":0" {
				t.Errorf("ContentAddr = %q, want :0", c.ContentAddr)
			}
		}},
		{"ipv6 next port", []string{"--addr", "[::1]:8080"}, envOf(), func(t *testing.T, c ServeConfig) {
			if c.ContentAddr != "[::1]:8081" {
				t.Errorf("ContentAddr = %q, want [::1]:8081", c.ContentAddr)
			}
		}},
		{"content origin alone shares the listener", []string{"--content-origin", "https://usercontent.example.net:8443"}, envOf(),
			func(t *testing.T, c ServeConfig) {
				if c.ContentAddr != "" {
					t.Errorf("ContentAddr = %q, want empty (one listener, Host routing)", c.ContentAddr)
				}
				if got := c.ContentOrigin.String(); got != "https://usercontent.example.net:8443" {
					t.Errorf("ContentOrigin = %q", got)
				}
			}},
		{"content origin and addr", []string{"--content-origin", "https://u.example.net", "--content-addr", "127.0.0.1:9999"}, envOf(),
			func(t *testing.T, c ServeConfig) {
				if c.ContentAddr != "127.0.0.1:9999" {
					t.Errorf("ContentAddr = %q, want 127.0.0.1:9999", c.ContentAddr)
				}
			}},
		{"content addr alone", []string{"--content-addr", "127.0.0.1:9000"}, envOf(), func(t *testing.T, c ServeConfig) {
			if c.ContentAddr != "127.0.0.1:9000" || c.ContentOrigin != nil {
				t.Errorf("ContentAddr, ContentOrigin = %q, %v", c.ContentAddr, c.ContentOrigin)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseForTest(tt.args, tt.env)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			tt.check(t, c)
		})
	}
}

func TestParseServeConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  lookupEnv
		want string // in the message
	}{
		{"not a URL", []string{"--base-url", "http://[::1"}, nil, "--base-url \"http://[::1\" is not a URL"},
		{"relative URL", []string{"--base-url", "files.example.com"}, nil, "scheme must be http or https"},
		{"ftp scheme", []string{"--content-origin", "ftp://u.example.net"}, nil, "scheme must be http or https"},
		{"IPv4 as browsers do not write it", []string{"--content-origin", "http://127.1:8081"}, nil, "browsers read the host \"127.1\" as an IP address; write an IPv4 address as four decimal numbers"},
		{"IPv4 as one number", []string{"--base-url", "http://2130706433"}, nil, "as four decimal numbers"},
		{"IPv4 in hex", []string{"--base-url", "http://0x7f.0.0.1"}, nil, "as four decimal numbers"},
		{"IPv4 with a trailing dot", []string{"--base-url", "http://127.0.0.1.:8080"}, nil, "as four decimal numbers"},
		{"IPv6 not compressed", []string{"--content-origin", "http://[0:0::1]:8081"}, nil, "write it as [::1]"},
		{"port with a leading zero", []string{"--content-origin", "http://127.0.0.1:018081"}, nil, "write the port as browsers do, without leading zeros"},
		{"default port", []string{"--base-url", "https://files.example.com:443"}, nil, "without the scheme's default port (443)"},
		{"default http port", []string{"--base-url", "http://files.example.com:80"}, nil, "default port (80)"},
		{"ideographic full stops", []string{"--content-origin", "http://127\u30020\u30020\u30021:8081"}, nil, "write the host in ASCII"},
		{"full-width full stops", []string{"--content-origin", "http://127\uff0e0\uff0e0\uff0e1:8081"}, nil, "write the host in ASCII"},
		{"a name not in punycode", []string{"--base-url", "https://b\u00fccher.example"}, nil, "its xn-- form"},
		{"IPv4-mapped IPv6", []string{"--content-origin", "http://[::ffff:127.0.0.1]:8081"}, nil, "write the IPv4 address itself, 127.0.0.1"},
		{"no host", []string{"--base-url", "https://"}, nil, "has no host"},
		{"URL port out of range", []string{"--base-url", "http://files.example.com:70000"}, nil, "port must be from 1 to 65535"},
		{"URL with path", []string{"--base-url", "https://example.com/files"}, nil, "origin only"},
		{"URL with query", []string{"--content-origin", "https://u.example.net/?x=1"}, nil, "origin only"},
		{"same origin", []string{"--base-url", "https://example.com", "--content-origin", "https://EXAMPLE.com/"}, nil, "same origin"},
		{"same origin from env", nil, envOf("FILEFRAME_BASE_URL", "http://a.example", "FILEFRAME_CONTENT_ORIGIN", "http://a.example"), "same origin"},
		{"addr without port", []string{"--addr", "127.0.0.1"}, nil, "want host:port"},
		{"addr port out of range", []string{"--addr", "127.0.0.1:70000"}, nil, "port must be a number from 0 to 65535"},
		{"addr named port", []string{"--addr", "localhost:http"}, nil, "port must be a number"},
		{"no next port", []string{"--addr", "127.0.0.1:65535"}, nil, "no next port"},
		{"content addr bad", []string{"--content-addr", "nope"}, nil, "--content-addr \"nope\""},
		{"content addr same as addr", []string{"--addr", "127.0.0.1:8080", "--content-addr", "127.0.0.1:8080"}, nil, "same as --addr"},
		{"bad log level", []string{"--log-level", "loud"}, nil, "--log-level \"loud\""},
		{"zero shutdown timeout", []string{"--shutdown-timeout", "0s"}, nil, "--shutdown-timeout must be positive"},
		{"negative read header timeout", []string{"--read-header-timeout", "-1s"}, nil, "--read-header-timeout must be positive"},
		{"zero upload idle timeout", []string{"--upload-idle-timeout", "0s"}, nil, "--upload-idle-timeout must be positive"},
		{"zero cleanup interval", nil, envOf("FILEFRAME_CLEANUP_EVERY", "0s"), "--cleanup-every must be positive"},
		{"bad env duration", nil, envOf("FILEFRAME_SHUTDOWN_TIMEOUT", "soon"), "FILEFRAME_SHUTDOWN_TIMEOUT: invalid value \"soon\": want a duration"},
		{"bad env number", nil, envOf("FILEFRAME_KEY_RATE", "fast"), "FILEFRAME_KEY_RATE: invalid value \"fast\": want a float"},
		{"bad env url", nil, envOf("FILEFRAME_CONTENT_ORIGIN", "javascript:alert(1)"), "scheme must be http or https"},
		{"zero rate", []string{"--key-rate", "0"}, nil, "must be positive"},
		// NaN passed "<= 0" and turned the limit off (twenty-first outside
		// attack's re-attack); Inf is no limit either.
		{"NaN key rate", nil, envOf("FILEFRAME_KEY_RATE", "NaN"), "--key-rate and --ip-rate must be positive numbers"},
		{"NaN address rate", []string{"--ip-rate", "nan"}, nil, "--key-rate and --ip-rate must be positive numbers"},
		{"infinite key rate", []string{"--key-rate", "+Inf"}, nil, "--key-rate and --ip-rate must be positive numbers"},
		{"NaN request upload rate", nil, envOf("FILEFRAME_REQUEST_UPLOAD_RATE", "NaN"), "--request-upload-rate must be a positive number"},
		{"infinite request upload rate", []string{"--request-upload-rate", "Inf"}, nil, "--request-upload-rate must be a positive number"},
		{"zero burst", []string{"--ip-burst", "0"}, nil, "at least 1"},
		{"empty data", []string{"--data", ""}, nil, "--data must not be empty"},
		{"bad signup", []string{"--signup", "yes"}, nil, "--signup \"yes\": use open or closed"},
		{"bad quota from env", nil, envOf("FILEFRAME_QUOTA_PRO_FILE", "lots"), "FILEFRAME_QUOTA_PRO_FILE: invalid value \"lots\": want a size"},
		{"bad file count from env", nil, envOf("FILEFRAME_QUOTA_PRO_FILES", "-3"), "FILEFRAME_QUOTA_PRO_FILES: invalid value \"-3\": want a count"},
		{"bad signup from env", nil, envOf("FILEFRAME_SIGNUP", "maybe"), "--signup \"maybe\""},
		{"password hash memory below one hash", []string{"--password-hash-memory", "32MiB"}, nil, "--password-hash-memory 32MiB is less than one password hash takes (64MiB)"},
		{"bad password hash memory from env", nil, envOf("FILEFRAME_PASSWORD_HASH_MEMORY", "much"), "FILEFRAME_PASSWORD_HASH_MEMORY: invalid value \"much\": want a size"},
		{"positional argument", []string{"extra"}, nil, "unexpected argument \"extra\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := tt.env
			if env == nil {
				env = envOf()
			}
			_, err := parseForTest(tt.args, env)
			var ue *usageError
			if !errors.As(err, &ue) {
				t.Fatalf("error = %v, want a usage error", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %q, want it to contain %q", err, tt.want)
			}
		})
	}
	if _, err := parseForTest([]string{"--no-such-flag"}, envOf()); !errors.Is(err, errFlagParse) {
		t.Errorf("unknown flag: error = %v, want errFlagParse", err)
	}
}

func TestParseArgs(t *testing.T) {
	tests := []struct {
		args     []string
		wantPos  []string
		wantName string
	}{
		{[]string{"a.txt", "--name", "x"}, []string{"a.txt"}, "x"},
		{[]string{"--name", "x", "a.txt"}, []string{"a.txt"}, "x"},
		{[]string{"a.txt", "b.txt", "--name=x"}, []string{"a.txt", "b.txt"}, "x"},
		{[]string{"--name", "x", "--", "--weird-file", "c"}, []string{"--weird-file", "c"}, "x"},
		{[]string{"a", "--", "-b"}, []string{"a", "-b"}, ""},
		{nil, nil, ""},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			name := fs.String("name", "", "")
			pos, err := parseArgs(fs, tt.args)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(pos, "|") != strings.Join(tt.wantPos, "|") || *name != tt.wantName {
				t.Errorf("got %q, name %q; want %q, name %q", pos, *name, tt.wantPos, tt.wantName)
			}
		})
	}
}

func TestParseLifetime(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"30d", 30 * 24 * time.Hour, true},
		{"1.5d", 36 * time.Hour, true},
		{"12h", 12 * time.Hour, true},
		{"90m", 90 * time.Minute, true},
		{"1h30m", 90 * time.Minute, true},
		{"0d", 0, false},
		{"-1h", 0, false},
		{"d", 0, false},
		{"30 days", 0, false},
		{"forever", 0, false},
		{"99999999d", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseLifetime(tt.in)
			if (err == nil) != tt.ok || got != tt.want {
				t.Errorf("parseLifetime(%q) = %v, %v; want %v, ok=%v", tt.in, got, err, tt.want, tt.ok)
			}
		})
	}
}

func TestParseEmail(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"ada@example.com", "ada@example.com", true},
		{"Ada.Lovelace@Example.COM", "ada.lovelace@example.com", true},
		{"", "", false},
		{"ada", "", false},
		{"Ada <ada@example.com>", "", false},
		{"ada@example.com, bob@example.com", "", false},
		{"@example.com", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseEmail(tt.in)
			if (err == nil) != tt.ok || got != tt.want {
				t.Errorf("parseEmail(%q) = %q, %v; want %q, ok=%v", tt.in, got, err, tt.want, tt.ok)
			}
		})
	}
}

// FuzzParseLifetime checks that --expires never panics and that whatever it
// accepts is a positive duration, at most 100 years when given in days.
func FuzzParseLifetime(f *testing.F) {
	for _, s := range []string{"30d", "12h", "90m", "1.5d", "0d", "-1d", "NaNd", "Infd", "1e309d", "36500d", "36501d", "0x1p4d", "1h30m", "", "d", "-5m"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseLifetime(s)
		if err != nil {
			return
		}
		if d <= 0 {
			t.Fatalf("parseLifetime(%q) = %v, want a positive duration", s, d)
		}
		if strings.HasSuffix(s, "d") && d > 100*365*24*time.Hour {
			t.Fatalf("parseLifetime(%q) = %v, more than 100 years", s, d)
		}
	})
}

// TestReadmeListsEveryServeFlag: the README's configuration table has a
// row for every flag of serve, with its variable ("| `--flag` |
// `FILEFRAME_…` |"); four were once missing from it.
func TestReadmeListsEveryServeFlag(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var cfg ServeConfig
	var raw rawServe
	vars := serveFlags(fs, &cfg, &raw)
	fs.VisitAll(func(f *flag.Flag) {
		v, ok := vars[f.Name]
		if !ok {
			t.Errorf("--%s has no variable", f.Name)
			return
		}
		if row := "| `--" + f.Name + "` | `" + v + "` |"; !strings.Contains(string(readme), row) {
			t.Errorf("the README's table has no row %q", row)
		}
	})
}
