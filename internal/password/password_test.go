package password

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
)

// cheap keeps tests fast; the default cost is covered once by TestHashDefault.
var cheap = Params{Memory: 64, Time: 1, Threads: 1}

// newHasher returns a Hasher with p and the default budget.
func newHasher(t testing.TB, p Params) *Hasher {
	t.Helper()
	h, err := NewHasher(p, Budget{})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestHashDefault(t *testing.T) {
	hasher := newHasher(t, Params{})
	ctx := context.Background()
	h, err := hasher.Hash(ctx, "correct horse battery staple")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`^\$argon2id\$v=19\$m=65536,t=2,p=2\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$`)
	if !re.MatchString(h) {
		t.Errorf("Hash = %q, want a PHC string matching %s", h, re)
	}
	ok, err := hasher.Verify(ctx, "correct horse battery staple", h)
	if err != nil || !ok {
		t.Errorf("Verify(right password) = %v, %v; want true, nil", ok, err)
	}
	if hasher.NeedsRehash(h) {
		t.Errorf("NeedsRehash(default hash) = true, want false")
	}
}

func TestVerify(t *testing.T) {
	hasher := newHasher(t, cheap)
	h, err := hasher.Hash(context.Background(), "s3cret pässword")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		pw   string
		want bool
	}{
		{"s3cret pässword", true},
		{"s3cret password", false},
		{"s3cret pässword ", false},
		{"", false},
		{"S3cret pässword", false},
	}
	for _, tt := range tests {
		t.Run(tt.pw, func(t *testing.T) {
			got, err := hasher.Verify(context.Background(), tt.pw, h)
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if got != tt.want {
				t.Errorf("Verify(%q) = %v, want %v", tt.pw, got, tt.want)
			}
		})
	}
	if !newHasher(t, Params{}).NeedsRehash(h) {
		t.Errorf("NeedsRehash(cheap hash) = false, want true")
	}
}

func TestHashSaltsDiffer(t *testing.T) {
	hasher := newHasher(t, cheap)
	a, _ := hasher.Hash(context.Background(), "same")
	b, _ := hasher.Hash(context.Background(), "same")
	if a == b {
		t.Errorf("two hashes of one password are equal (%q): salt not random", a)
	}
}

func TestHashEmpty(t *testing.T) {
	if _, err := newHasher(t, cheap).Hash(context.Background(), ""); !errors.Is(err, ErrEmpty) {
		t.Errorf("Hash(\"\") error = %v, want ErrEmpty", err)
	}
}

// A hash made with known parameters and salt, so a change of encoding or of
// the key derivation shows up as a failure.
func TestVerifyFixedHash(t *testing.T) {
	salt := []byte("0123456789abcdef")
	h := encode(cheap, salt, argonKey("hunter2", salt, cheap, keyLen))
	want := "$argon2id$v=19$m=64,t=1,p=1$MDEyMzQ1Njc4OWFiY2RlZg$"
	if !strings.HasPrefix(h, want) {
		t.Fatalf("encode = %q, want prefix %q", h, want)
	}
	if ok, err := newHasher(t, cheap).Verify(context.Background(), "hunter2", h); !ok || err != nil {
		t.Errorf("Verify = %v, %v; want true, nil", ok, err)
	}
}

func TestVerifyMalformed(t *testing.T) {
	hasher := newHasher(t, cheap)
	good, _ := hasher.Hash(context.Background(), "pw")
	parts := strings.Split(good, "$")
	salt, key := parts[4], parts[5]
	tests := map[string]string{
		"empty":             "",
		"no leading dollar": "argon2id$v=19$m=64,t=1,p=1$" + salt + "$" + key,
		"argon2i":           "$argon2i$v=19$m=64,t=1,p=1$" + salt + "$" + key,
		"bcrypt":            "$2a$10$abcdefghijklmnopqrstuuABCDEFGHIJKLMNOPQRSTUVWXYZ01234",
		"old version":       "$argon2id$v=16$m=64,t=1,p=1$" + salt + "$" + key,
		"no version":        "$argon2id$m=64,t=1,p=1$" + salt + "$" + key,
		"params reordered":  "$argon2id$v=19$t=1,m=64,p=1$" + salt + "$" + key,
		"missing p":         "$argon2id$v=19$m=64,t=1$" + salt + "$" + key,
		"negative t":        "$argon2id$v=19$m=64,t=-1,p=1$" + salt + "$" + key,
		"leading zero":      "$argon2id$v=19$m=064,t=1,p=1$" + salt + "$" + key,
		"plus sign":         "$argon2id$v=19$m=+64,t=1,p=1$" + salt + "$" + key,
		"t zero":            "$argon2id$v=19$m=64,t=0,p=1$" + salt + "$" + key,
		"p zero":            "$argon2id$v=19$m=64,t=1,p=0$" + salt + "$" + key,
		"p too big":         "$argon2id$v=19$m=64,t=1,p=256$" + salt + "$" + key,
		"m below 8p":        "$argon2id$v=19$m=7,t=1,p=1$" + salt + "$" + key,
		"m huge":            "$argon2id$v=19$m=4294967295,t=1,p=1$" + salt + "$" + key,
		"t huge":            "$argon2id$v=19$m=64,t=100000,p=1$" + salt + "$" + key,
		"salt padded":       "$argon2id$v=19$m=64,t=1,p=1$" + salt + "==$" + key,
		"salt short":        "$argon2id$v=19$m=64,t=1,p=1$AAAA$" + key,
		"key short":         "$argon2id$v=19$m=64,t=1,p=1$" + salt + "$AAAA",
		"key not base64":    "$argon2id$v=19$m=64,t=1,p=1$" + salt + "$" + key[:len(key)-1] + "!",
		"extra field":       good + "$x",
	}
	for name, enc := range tests {
		t.Run(name, func(t *testing.T) {
			ok, err := hasher.Verify(context.Background(), "pw", enc)
			if ok || !errors.Is(err, ErrMalformed) {
				t.Errorf("Verify(%q) = %v, %v; want false, ErrMalformed", enc, ok, err)
			}
			if !hasher.NeedsRehash(enc) {
				t.Errorf("NeedsRehash(%q) = false, want true", enc)
			}
		})
	}
}

// FuzzDecode checks that the PHC parser never panics, accepts only what is
// inside the bounds, and that whatever it accepts is canonical: encoding it
// again gives the same string.
func FuzzDecode(f *testing.F) {
	good, _ := newHasher(f, cheap).Hash(context.Background(), "pw")
	f.Add(good)
	f.Add("$argon2id$v=19$m=65536,t=2,p=2$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g")
	f.Add("$argon2id$v=19$m=,t=,p=$$")
	f.Add("$$$$$")
	f.Fuzz(func(t *testing.T, s string) {
		p, salt, key, err := decode(s)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("decode(%q) error %v is not ErrMalformed", s, err)
			}
			return
		}
		if p.check() != nil || len(salt) < minSaltLen || len(key) < minKeyLen {
			t.Fatalf("decode(%q) accepted out-of-bounds values %+v, %d, %d", s, p, len(salt), len(key))
		}
		if got := encode(p, salt, key); got != s {
			t.Fatalf("encode(decode(%q)) = %q", s, got)
		}
	})
}
