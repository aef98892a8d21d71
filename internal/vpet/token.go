package vpet

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/hookwire/hookwire/internal/safefile"
)

// TokenBytes is the token's entropy: secrets.token_hex(32) in agentica,
// 64 hex characters.
const TokenBytes = 32

// Token is the bearer token and where it came from. The value never leaves
// the process except in the Authorization header: Where is what the debug
// log names.
type Token struct {
	Value string
	Where string // "VPET_NOTIFY_TOKEN", "the token file /path", …
	// Created says this call wrote the file (or filled an empty one).
	Created bool
}

// TokenOptions is how ResolveToken finds or makes the token.
type TokenOptions struct {
	Getenv func(string) string
	// File is the token file; "" means there is none to read or create.
	File string
	// Create allows creating the file when it is absent or empty. A dry run
	// reads but does not create: a token file is something VPet sees.
	Create bool
	// Lock serializes creation among hookwire processes, when it can; nil
	// means O_EXCL alone decides who creates.
	Lock func(ctx context.Context) (release func(), err error)
	// Ctx bounds the waits: for the lock, and for another creator's write.
	Ctx context.Context
}

// ErrNoToken means nothing configured a token and the file could not give one.
var ErrNoToken = errors.New("no token")

// ErrAbsent means the token file does not exist or is empty, and creating it
// was not allowed: a real run would create or fill it.
var ErrAbsent = errors.New("no token yet")

// ResolveToken is agentica's token rule (notify/token.py, config.py): the
// inline token (VPET_NOTIFY_TOKEN or AGENTICA_NOTIFY_TOKEN) first, else the
// token file's contents stripped. When the file does not exist it is created
// with O_EXCL, mode 0600, holding a fresh token and a newline; an existing
// non-empty file is never overwritten, whoever wrote it, because overwriting
// would lock the other side out with 401s. An empty (or blank) file may be
// filled. Whoever runs first decides; everyone after adopts.
//
// It is read on every call, never cached: a file that VPet creates later
// works from the next event on.
func ResolveToken(o TokenOptions) (Token, error) {
	if v, from := lookup(o.Getenv, EnvToken); v != "" {
		return checked(Token{Value: string(bytes.TrimSpace([]byte(v))), Where: from})
	}
	if o.File == "" {
		return Token{}, fmt.Errorf("%w: no token file (set %s or %s)", ErrNoToken, EnvToken, EnvTokenFile)
	}
	where := "the token file " + o.File
	v, err := readToken(o.File)
	if err == nil && v != "" {
		return checked(Token{Value: v, Where: where})
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Token{}, fmt.Errorf("%w: %s is unreadable: %v", ErrNoToken, o.File, plainErr(err))
	}
	if !o.Create {
		if err != nil {
			return Token{Where: where}, fmt.Errorf("%w: %s does not exist", ErrAbsent, o.File)
		}
		return Token{Where: where}, fmt.Errorf("%w: %s is empty", ErrAbsent, o.File)
	}
	ctx := o.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	if o.Lock != nil {
		// Hookwire processes take turns here; the first creates, the rest
		// find its token when they get the lock.
		if release, err := o.Lock(ctx); err == nil {
			defer release()
		}
	}
	t, err := ensure(ctx, o.File)
	t.Where = where
	if err != nil {
		return t, fmt.Errorf("%w: %v", ErrNoToken, err)
	}
	return checked(t)
}

// ensure creates the file if it is absent, fills it if it is empty, and
// returns the token it holds.
func ensure(ctx context.Context, path string) (Token, error) {
	if v, err := readToken(path); err == nil && v != "" {
		return Token{Value: v}, nil // someone was quicker
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return Token{}, plainErr(err)
	}
	value := newToken()
	f, err := safefile.Open(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		// One write: a reader that opens the file between our open and
		// this write sees it empty, and waits for us (below).
		_, werr := f.Write([]byte(value + "\n"))
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return Token{}, plainErr(werr)
		}
		return Token{Value: value, Created: true}, nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return Token{}, plainErr(err)
	}
	// It exists: created a moment ago by another process (VPet, agentica,
	// another agent's hook) that has not written yet, or left empty.
	v, err := waitForToken(ctx, path)
	if err != nil || v != "" {
		return Token{Value: v}, err
	}
	return fill(path, value)
}

// creatorGrace is how long an empty file that was just created is given to
// receive its creator's token before it counts as empty.
const creatorGrace = 200 * time.Millisecond

// waitForToken rereads a file that exists but is empty while it is young:
// its creator writes right after creating it.
func waitForToken(ctx context.Context, path string) (string, error) {
	for {
		v, err := readToken(path)
		if err != nil || v != "" {
			return v, plainErr(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			return "", plainErr(err)
		}
		if time.Since(fi.ModTime()) > creatorGrace {
			return "", nil
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// fill writes a token into an existing empty file, unless it stopped being
// empty meanwhile, and makes it 0600 (agentica rewrites an empty file the
// same way).
func fill(path, value string) (Token, error) {
	f, err := safefile.Open(path, os.O_RDWR, 0) // not through a link planted beside a socket
	if err != nil {
		return Token{}, plainErr(err)
	}
	defer f.Close()
	old, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return Token{}, plainErr(err)
	}
	if v := string(bytes.TrimSpace(old)); v != "" {
		return Token{Value: v}, nil
	}
	if err := f.Chmod(0o600); err != nil {
		return Token{}, plainErr(err)
	}
	if err := f.Truncate(0); err != nil {
		return Token{}, plainErr(err)
	}
	if _, err := f.WriteAt([]byte(value+"\n"), 0); err != nil {
		return Token{}, plainErr(err)
	}
	return Token{Value: value, Created: true}, nil
}

// maxTokenFile bounds what is read of the token file: a token is 65 bytes.
const maxTokenFile = 4096

// readToken returns the file's contents stripped.
func readToken(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxTokenFile))
	if err != nil {
		return "", err
	}
	return string(bytes.TrimSpace(b)), nil
}

func newToken() string {
	b := make([]byte, TokenBytes)
	rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}

// checked refuses a token that an HTTP header cannot carry (a control
// character, a space inside it): sending it would fail anyway, and the
// error must not quote it.
func checked(t Token) (Token, error) {
	for i := 0; i < len(t.Value); i++ {
		if c := t.Value[i]; c <= ' ' || c == 0x7f {
			return Token{Where: t.Where}, fmt.Errorf("%w: %s holds a character a header cannot carry", ErrNoToken, t.Where)
		}
	}
	return t, nil
}

// plainErr drops the path that fs errors repeat: the message already names it.
func plainErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}
