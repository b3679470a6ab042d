package targets

import (
	"context"
	"net/url"
	"strings"
	"time"

	"github.com/caddy-ark/caddy-ark/store"
)

// manyShare is how many other targets ending at one URL make it the page
// of a migration rather than a target's own.
const manyShare = 5

// maxFailingRetry is the longest a failing target waits for its next
// check.
const maxFailingRetry = 24 * time.Hour

// judge returns what old, a target's record, becomes after the check o
// at now, and the result that caddy_ark_target_checks_total counts. count
// counts the other targets that ended at a URL.
//
// A target's own page is where its first answer ended, unless that was a
// front page or a page many targets end at; it is kept from then on. A
// target that answers at another URL now is still ok when that URL is
// its own, or a page few targets share (a move); it is suspect when that
// is a front page or a page many share (a migration that sent everything
// to one place).
func (s *settings) judge(ctx context.Context, old *store.TargetCheck, o outcome, now time.Time, count func(ctx context.Context, final, target string) (int, error)) (*store.TargetCheck, string, error) {
	c := *old
	if o.verdict == deferred {
		c.Due = now.Add(max(o.retry, s.hostInterval))
		return &c, "deferred", nil
	}
	c.Checked, c.Code, c.Final = now, o.code, o.final
	c.Due = now.Add(s.interval)
	result := ""
	switch o.verdict {
	case answered:
		c.Failures = 0
		c.State, result = store.TargetOK, "ok"
		if strings.HasPrefix(c.Target, "/") || o.final == old.Page {
			break // in place, or at its own page still
		}
		shared := false
		if o.final != c.Target {
			if frontPage(o.final) && !frontPage(c.Target) {
				shared = true
			} else {
				n, err := count(ctx, o.final, c.Target)
				if err != nil {
					return nil, "", err
				}
				shared = n >= manyShare
			}
		}
		switch {
		case shared && old.Page != "":
			c.State, result = store.TargetSuspect, "suspect"
		case !shared && old.Page == "":
			c.Page = o.final // its own page, from now on
		}
	case failed:
		c.Failures = 1
		if old.State == store.TargetFailing || old.State == store.TargetBroken {
			c.Failures = old.Failures + 1
		}
		c.State, result = store.TargetFailing, "failed"
		if c.Failures >= s.failures {
			c.State = store.TargetBroken
		} else {
			c.Due = now.Add(min(s.interval/time.Duration(s.failures), maxFailingRetry))
		}
	case unverifiable:
		c.Failures = 0
		c.State, result = store.TargetUnverifiable, "unverifiable"
	}
	if c.State != old.State {
		c.Since, c.Notified = now, false
	}
	return &c, result, nil
}

// frontPage reports whether u is the front page of its origin.
func frontPage(u string) bool {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" {
		return false
	}
	switch strings.ToLower(p.Path) {
	case "", "/", "/index.html", "/index.htm", "/index.php", "/home", "/home/":
		return true
	}
	return false
}
