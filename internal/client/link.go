package client

import (
	"context"
	"net/http"
	"strconv"
	"time"
)

// Link is a file's link controls and state (File.Link).
type Link struct {
	// State is "live", "expired" or "used_up".
	State string `json:"state"`
	// ExpiresAt is when the link ends; nil: never.
	ExpiresAt *time.Time `json:"expiresAt"`
	// MaxDownloads is the complete downloads it allows (1: one-time);
	// nil: no limit. Downloads counts those against it.
	MaxDownloads *int64 `json:"maxDownloads"`
	Downloads    int64  `json:"downloads"`
	// Password says whether visitors need a password.
	Password        bool   `json:"password"`
	RemoveWhenEnded bool   `json:"removeWhenEnded"`
	Reveal          string `json:"reveal"`
}

// LinkChange is what an upload sets, or SetLink changes, of a file's
// link; zero fields stay as they are (or get the server's defaults).
type LinkChange struct {
	// ExpiresIn is a lifetime from now ("7d", "36h"); ExpiresAt a time.
	// NoExpiry (SetLink only) makes the link live until changed again.
	ExpiresIn string
	ExpiresAt time.Time
	NoExpiry  bool
	// MaxDownloads: 1 for a one-time link, 0 for no limit.
	MaxDownloads *int64
	// Password sets the password; "" removes it (SetLink only).
	Password        *string
	RemoveWhenEnded *bool
	// Reveal is "" (nothing) or "name".
	Reveal *string
}

// patch is c as the "link" member of PATCH /api/files/{id}.
func (c LinkChange) patch() map[string]any {
	m := map[string]any{}
	switch {
	case c.NoExpiry:
		m["expiresAt"] = nil
	case c.ExpiresIn != "":
		m["expiresIn"] = c.ExpiresIn
	case !c.ExpiresAt.IsZero():
		m["expiresAt"] = c.ExpiresAt.UTC().Format(time.RFC3339)
	}
	if c.MaxDownloads != nil {
		m["maxDownloads"] = *c.MaxDownloads
	}
	if c.Password != nil {
		if *c.Password == "" {
			m["password"] = nil
		} else {
			m["password"] = *c.Password
		}
	}
	if c.RemoveWhenEnded != nil {
		m["removeWhenEnded"] = *c.RemoveWhenEnded
	}
	if c.Reveal != nil {
		m["reveal"] = *c.Reveal
	}
	return m
}

// metadata is c as a tus upload's metadata (the names of POST
// /api/files's query parameters, and password).
func (c LinkChange) metadata() map[string]string {
	m := map[string]string{}
	switch {
	case c.ExpiresIn != "":
		m["expiresIn"] = c.ExpiresIn
	case !c.ExpiresAt.IsZero():
		m["expiresAt"] = c.ExpiresAt.UTC().Format(time.RFC3339)
	}
	if c.MaxDownloads != nil {
		m["maxDownloads"] = strconv.FormatInt(*c.MaxDownloads, 10)
	}
	if c.Password != nil && *c.Password != "" {
		m["password"] = *c.Password
	}
	if c.RemoveWhenEnded != nil {
		m["removeWhenEnded"] = strconv.FormatBool(*c.RemoveWhenEnded)
	}
	if c.Reveal != nil {
		m["reveal"] = *c.Reveal
	}
	return m
}

// SetLink changes a file's link controls (PATCH /api/files/{id} with
// {"link": …}) and returns the file.
func (c *Client) SetLink(ctx context.Context, id string, change LinkChange) (File, error) {
	var out File
	err := c.call(ctx, http.MethodPatch, "/api/files/"+pathID(id), nil, map[string]any{"link": change.patch()}, &out)
	return out, err
}
