package main

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"io"
	"net/http"
	"os"
	"path/filepath"
)

// cardImage is the link preview card's image in the output directory: the
// og:image that Fileframe draws for a link (internal/card), as a messenger
// fetches it.
const cardImage = "link-preview-card.png"

// cardFile is the demo file whose card is saved: the account's Card
// appearance with the studio's logo, headline and accent.
const cardFile = "presskit"

// saveCard fetches the preview card of the demo's cardFile as Slack's
// crawler does and writes it to dir, once the instance has its demo files;
// it fails unless the answer is a 1200×630 PNG.
func saveCard(ctx context.Context, d *demo, dir string, stdout io.Writer) error {
	if d.stage < seeded {
		return nil
	}
	path := d.files[cardFile].URL() + "/card.png"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, appOrigin+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("User-Agent", "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)")
	_, body, err := d.clients[visitor].do(req)
	if err != nil {
		return fmt.Errorf("the link preview card: %w", err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("the link preview card at %s: %w", path, err)
	}
	if cfg.Width != 1200 || cfg.Height != 630 {
		return fmt.Errorf("the link preview card at %s is %d×%d, want 1200×630", path, cfg.Width, cfg.Height)
	}
	file := filepath.Join(dir, cardImage)
	if err := os.WriteFile(file, body, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%-28s %-8s %4d×%-5d %s\n", "link-preview-card", "og:image", cfg.Width, cfg.Height, file)
	return nil
}
