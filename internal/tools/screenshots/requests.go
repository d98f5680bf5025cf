package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// The demo's file request (issue 13): the admin asks a client for the
// documents of a shoot; two people send files through its page, and the
// admin shares one of them.
const (
	demoRequestID   fileframe.RequestID = "r_Rq7mK2xW9pLc4TbN"
	demoRequestSlug                     = "Uq4Lm8ZcR2tY"
)

// sent is one file a sender sends through the demo request's form.
type sent struct {
	from, email, name, contentType string
	size                           int
}

// seedRequest creates the admin's request with fixed ID and slug (so the
// addresses in the pictures stay the same), sends files through its page
// as two senders (the sender's own browser keeps its visit for the
// screen), and shares one of them from the request's page in the app.
func (d *demo) seedRequest(ctx context.Context) error {
	owner, err := d.in.store.AccountByEmail(ctx, adminEmail)
	if err != nil {
		return err
	}
	if _, err := d.in.store.CreateRequest(ctx, fileframe.Request{
		ID: demoRequestID, Slug: demoRequestSlug, AccountID: owner.ID,
		Title:    "Signed releases for the Costa da Morte shoot",
		Message:  "Hi! Please send the signed model and location releases, and any photos you took on set.\nPDF or JPEG is fine. Thank you!",
		MaxFiles: 20, MaxBytes: 2 << 30, ExpiresAt: demoNow.Add(14 * 24 * time.Hour), CreatedAt: demoNow.Add(-3 * 24 * time.Hour),
	}); err != nil {
		return err
	}
	page := "/r/" + demoRequestSlug
	for i, batch := range [][]sent{
		{{"Inês Lorenzo", "ines@lorenzo-agency.es", "Model release – Inês Lorenzo.pdf", "application/pdf", 412_330},
			{"Inês Lorenzo", "ines@lorenzo-agency.es", "Location release – Praia de Nemiña.pdf", "application/pdf", 298_114}},
		{{"Anna Kowalski", "", "On set – behind the scenes 01.jpg", "image/jpeg", 2_481_902},
			{"Anna Kowalski", "", "On set – behind the scenes 02.jpg", "image/jpeg", 2_207_445}},
	} {
		c := newClient(appOrigin, d.in.hosts)
		if i == 1 {
			c = d.clients[sender]
		}
		c.paths = append(c.paths, page)
		var files []upload
		for j, s := range batch {
			content := make([]byte, s.size)
			rand.NewChaCha8([32]byte{byte(40 + 2*i + j)}).Read(content)
			files = append(files, upload{"file", s.name, s.contentType, content})
		}
		fields := url.Values{"name": {batch[0].from}}
		if batch[0].email != "" {
			fields.Set("email", batch[0].email)
		}
		if _, err := c.submitFiles(ctx, page, page+"/upload", fields, files...); err != nil {
			return fmt.Errorf("sending files through the request: %w", err)
		}
	}
	received, err := d.in.store.ReceivedFiles(ctx, demoRequestID, "")
	if err != nil || len(received) == 0 {
		return fmt.Errorf("the request received %d files: %v", len(received), err)
	}
	detail := "/requests/" + string(demoRequestID)
	_, err = d.clients[admin].submit(ctx, detail, "/files/"+string(received[0].File.ID)+"/share", url.Values{"back": {detail}})
	return err
}
