package web

import (
	"context"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/service"
)

// The webhook tools of MCP, registered in newMCPServer: each calls the
// *Op function its REST endpoint calls (api_webhooks.go), so the two
// surfaces run the same service use case and answer the same JSON. Like
// the REST routes, every one needs a general key (generalOnly with
// webhooksScope); /mcp's admission has checked the plan already.

type mcpWebhookInput struct {
	WebhookID string `json:"webhookId" jsonschema:"The endpoint's ID (webhookId of list_webhooks or create_webhook, wh_…)."`
}

type mcpCreateWebhookInput struct {
	URL         string   `json:"url" jsonschema:"The receiver's public https URL (no user name, password or fragment), e.g. https://hooks.example.com/fileframe."`
	Events      []string `json:"events,omitempty" jsonschema:"The event types it gets, any of file.created, file.downloaded, page.published, page.unpublished, link.expired; left out: all of them."`
	FileID      string   `json:"fileId,omitempty" jsonschema:"Only this file's events (one of the account's files, f_…); left out: every file of the account."`
	Description string   `json:"description,omitempty" jsonschema:"A note for people, at most 200 characters on one line, e.g. CRM."`
}

type mcpPauseWebhookInput struct {
	mcpWebhookInput
	Paused bool `json:"paused" jsonschema:"true pauses the endpoint (no new events; its pending deliveries wait); false resumes it (the waiting deliveries are sent)."`
}

type mcpDeliveryInput struct {
	mcpWebhookInput
	DeliveryID string `json:"deliveryId" jsonschema:"The delivery's ID (deliveryId of list_deliveries, dl_…)."`
}

// listWebhooksTool is list_webhooks.
func (s *Server) listWebhooksTool(ctx context.Context, c apiCaller, _ struct{}) (webhookList, error) {
	return s.webhooksOp(ctx, c)
}

// createWebhookTool is create_webhook: events given as an empty list is
// refused, as in POST /api/webhooks.
func (s *Server) createWebhookTool(ctx context.Context, c apiCaller, in mcpCreateWebhookInput) (webhookCreated, error) {
	return s.createWebhookOp(ctx, c, service.NewWebhook{URL: in.URL, Events: eventTypes(in.Events),
		FileID: fileframe.FileID(in.FileID), Description: in.Description})
}

// deleteWebhookTool is delete_webhook.
func (s *Server) deleteWebhookTool(ctx context.Context, c apiCaller, in mcpWebhookInput) (deletedWebhook, error) {
	return s.deleteWebhookOp(ctx, c, fileframe.WebhookID(in.WebhookID))
}

// pauseWebhookTool is pause_webhook.
func (s *Server) pauseWebhookTool(ctx context.Context, c apiCaller, in mcpPauseWebhookInput) (webhookAnswer, error) {
	return s.pauseWebhookOp(ctx, c, fileframe.WebhookID(in.WebhookID), in.Paused)
}

// listDeliveriesTool is list_deliveries.
func (s *Server) listDeliveriesTool(ctx context.Context, c apiCaller, in mcpWebhookInput) (deliveryList, error) {
	return s.deliveriesOp(ctx, c, fileframe.WebhookID(in.WebhookID))
}

// retryDeliveryTool is retry_delivery.
func (s *Server) retryDeliveryTool(ctx context.Context, c apiCaller, in mcpDeliveryInput) (retriedDelivery, error) {
	return s.retryDeliveryOp(ctx, c, fileframe.WebhookID(in.WebhookID), fileframe.DeliveryID(in.DeliveryID))
}
