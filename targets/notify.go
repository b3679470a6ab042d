package targets

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/caddy-ark/caddy-ark/store"
	"go.uber.org/zap"
)

// Notice is the body of the POST to notify: the targets that became
// broken during a pass and were not notified before.
type Notice struct {
	Site   string         `json:"site"`   // the site, as the checker names it
	Until  time.Time      `json:"until"`  // the end of the pass
	Broken []NoticeTarget `json:"broken"` // the targets, in the store's order
}

// NoticeTarget is one target of a Notice.
type NoticeTarget struct {
	Target   string    `json:"target"`
	ID       string    `json:"id"` // an identifier that has it
	Code     string    `json:"code"`
	Failures int       `json:"failures"`
	Since    time.Time `json:"since"`
}

// endPass ends a pass at until: the targets that became broken before
// then and were not notified are posted to notify, once, and marked as
// notified when it took them.
func (ch *Checker) endPass(ctx context.Context, until time.Time) {
	if ch.set.notify == "" {
		return
	}
	fresh := func(c *store.TargetCheck) bool {
		return c.State == store.TargetBroken && !c.Notified && c.Since.Before(until)
	}
	n := Notice{Site: ch.set.site, Until: until.UTC(), Broken: []NoticeTarget{}}
	err := ch.tc.EachTargetCheck(ctx, func(c *store.TargetCheck) error {
		if fresh(c) {
			n.Broken = append(n.Broken, NoticeTarget{Target: c.Target, ID: c.Key, Code: c.Code, Failures: c.Failures, Since: c.Since})
		}
		return nil
	})
	if err != nil || len(n.Broken) == 0 {
		return
	}
	body, err := json.Marshal(n)
	if err == nil {
		err = ch.post(ctx, body)
	}
	if err != nil {
		ch.logger.Warn("targets_check: notify did not take the newly broken targets; they are sent again after the next pass",
			zap.String("notify", ch.set.notify), zap.Int("broken", len(n.Broken)), zap.Error(err))
		return
	}
	targets := make([]string, len(n.Broken))
	for i, b := range n.Broken {
		targets[i] = b.Target
	}
	for len(targets) > 0 && err == nil {
		batch := targets[:min(len(targets), writeBatch)]
		targets = targets[len(batch):]
		err = ch.markNotified(ctx, batch, fresh)
	}
	if err != nil {
		ch.logger.Warn("targets_check: notified targets not marked so; they may be notified again", zap.Error(err))
	}
	ch.logger.Info("targets_check: notified the newly broken targets", zap.String("notify", ch.set.notify), zap.Int("broken", len(n.Broken)))
}

// markNotified marks the targets that are still fresh as notified, each
// read and written back with no result written in between, which the
// record read would undo.
func (ch *Checker) markNotified(ctx context.Context, targets []string, fresh func(*store.TargetCheck) bool) error {
	ch.storeMu.Lock()
	defer ch.storeMu.Unlock()
	held, err := ch.tc.LookupTargetChecks(ctx, targets)
	if err != nil {
		return err
	}
	var done []*store.TargetCheck
	for _, c := range held {
		if c != nil && fresh(c) {
			c.Notified = true
			done = append(done, c)
		}
	}
	return ch.tc.PutTargetChecks(ctx, done)
}

// post sends body to the notify URL.
func (ch *Checker) post(ctx context.Context, body []byte) error {
	ctx, cancel := context.WithTimeout(ctx, ch.set.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ch.set.notify, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", ch.set.userAgent)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxBody))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("it answered %s", resp.Status)
	}
	return nil
}
