package console

import "net/http"

// homeView is what the front page shows.
type homeView struct {
	Scopes []string
}

// home answers the front page.
func (p *page) home() error {
	return p.render(http.StatusOK, view{Title: "Identifiers", Page: homeView{Scopes: p.sess.key.Scopes()}}, "home")
}
