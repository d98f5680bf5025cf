// Package password hashes account passwords with Argon2id and verifies them.
// Hashes are PHC strings,
//
//	$argon2id$v=19$m=65536,t=2,p=2$<salt>$<hash>
//
// (salt and hash in unpadded standard base64), so that the parameters travel
// with each hash and can be raised later without breaking old ones; see
// https://github.com/P-H-C/phc-string-format/blob/master/phc-sf-spec.md.
//
// Argon2 is memory-hard on purpose: each hash takes its m KiB (64 MiB by
// default) while it runs. So hashes are only made and checked through a
// Hasher, which runs them under a memory budget (hasher.go): however many
// sign-ins arrive at once, the memory they hold stays under it.
package password

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/crypto/argon2"
)

// The default cost, within OWASP's recommendations for Argon2id
// (https://cheatsheetseries.owasp.org/cheatsheets/Password_Storage_Cheat_Sheet.html):
// 64 MiB of memory, 2 passes, 2 lanes. One hash takes tens of milliseconds on
// a current server core.
const (
	DefaultMemory  = 64 * 1024 // KiB
	DefaultTime    = 2
	DefaultThreads = 2
	saltLen        = 16
	keyLen         = 32
)

// Bounds accepted when decoding a hash. They keep a corrupt or hostile stored
// hash from making Verify allocate more than 1 GiB or spin for minutes; a
// Hasher also refuses a hash whose m is more than its whole budget
// (ErrTooCostly).
const (
	maxMemory  = 1 << 20 // KiB, 1 GiB
	maxTime    = 64
	minSaltLen = 8
	maxSaltLen = 64
	minKeyLen  = 16
	maxKeyLen  = 128
)

// Params is the cost of one hash.
type Params struct {
	Memory  uint32 // KiB
	Time    uint32 // passes over the memory
	Threads uint8  // lanes
}

// DefaultParams returns the parameters a Hasher hashes with unless told
// otherwise.
func DefaultParams() Params {
	return Params{Memory: DefaultMemory, Time: DefaultTime, Threads: DefaultThreads}
}

// ErrEmpty is returned by Hash for an empty password.
var ErrEmpty = errors.New("password: empty password")

// ErrMalformed is returned by Verify for a stored hash it cannot decode.
var ErrMalformed = errors.New("password: malformed hash")

// argonKey derives the Argon2id key of pw: the computation that takes
// p.Memory KiB. Only a Hasher calls it, holding that memory of its budget.
func argonKey(pw string, salt []byte, p Params, n int) []byte {
	return argon2.IDKey([]byte(pw), salt, p.Time, p.Memory, p.Threads, uint32(n))
}

// newSalt returns a fresh random salt.
func newSalt() []byte {
	salt := make([]byte, saltLen)
	rand.Read(salt) // never returns an error (crypto/rand docs, Go 1.24+)
	return salt
}

func (p Params) check() error {
	switch {
	case p.Threads < 1:
		return fmt.Errorf("%w: p must be at least 1", ErrMalformed)
	case p.Time < 1 || p.Time > maxTime:
		return fmt.Errorf("%w: t must be 1..%d", ErrMalformed, maxTime)
	case p.Memory < 8*uint32(p.Threads) || p.Memory > maxMemory:
		// Argon2 needs at least 8 KiB per lane (RFC 9106, section 3.1).
		return fmt.Errorf("%w: m must be %d..%d KiB", ErrMalformed, 8*uint32(p.Threads), maxMemory)
	}
	return nil
}

var b64 = base64.RawStdEncoding

func encode(p Params, salt, key []byte) string {
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.Memory, p.Time, p.Threads, b64.EncodeToString(salt), b64.EncodeToString(key))
}

// decode parses a PHC string made by encode. It is strict: one algorithm,
// one version, the three parameters in order, canonical decimal numbers and
// base64 without padding.
func decode(s string) (p Params, salt, key []byte, err error) {
	fail := func(why string) (Params, []byte, []byte, error) {
		return Params{}, nil, nil, fmt.Errorf("%w: %s", ErrMalformed, why)
	}
	parts := strings.Split(s, "$")
	if len(parts) != 6 || parts[0] != "" {
		return fail("want $argon2id$v=..$m=..,t=..,p=..$salt$hash")
	}
	if parts[1] != "argon2id" {
		return fail("algorithm is not argon2id")
	}
	v, ok := strings.CutPrefix(parts[2], "v=")
	if !ok {
		return fail("no version")
	}
	if n, ok := parseUint(v, 32); !ok || n != argon2.Version {
		return fail("unsupported version")
	}
	fields := strings.Split(parts[3], ",")
	if len(fields) != 3 {
		return fail("want m, t and p")
	}
	var vals [3]uint64
	for i, name := range []string{"m=", "t=", "p="} {
		raw, ok := strings.CutPrefix(fields[i], name)
		if !ok {
			return fail("want m, t and p in that order")
		}
		bits := 32
		if i == 2 {
			bits = 8
		}
		if vals[i], ok = parseUint(raw, bits); !ok {
			return fail("bad number for " + name[:1])
		}
	}
	p = Params{Memory: uint32(vals[0]), Time: uint32(vals[1]), Threads: uint8(vals[2])}
	if err := p.check(); err != nil {
		return Params{}, nil, nil, err
	}
	// The decoder skips \r and \n, so a decoded value is also encoded again
	// and compared: only the canonical spelling is accepted.
	if salt, err = b64.Strict().DecodeString(parts[4]); err != nil || b64.EncodeToString(salt) != parts[4] {
		return fail("salt is not base64")
	}
	if len(salt) < minSaltLen || len(salt) > maxSaltLen {
		return fail("salt length")
	}
	if key, err = b64.Strict().DecodeString(parts[5]); err != nil || b64.EncodeToString(key) != parts[5] {
		return fail("hash is not base64")
	}
	if len(key) < minKeyLen || len(key) > maxKeyLen {
		return fail("hash length")
	}
	return p, salt, key, nil
}

// parseUint parses a canonical decimal (no sign, no leading zeros) that fits
// in bits.
func parseUint(s string, bits int) (uint64, bool) {
	if s == "" || (len(s) > 1 && s[0] == '0') || s[0] == '+' {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, bits)
	return n, err == nil
}
