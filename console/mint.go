package console

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/mint"
)

// mintInput is what the mint form holds.
type mintInput struct {
	Shoulder string
	N        string
	Target   string
}

// mintView is what the mint page shows.
type mintView struct {
	In        mintInput
	Shoulders []string // those the key may mint under
	Max       int
	Minted    []string
}

// shoulders returns the shoulders of the site's minters that the key may
// mint under, as the API's Mint takes them: a bare NAAN's minter, whose
// Shoulder is "ark:12345/", as "ark:12345".
func (p *page) shoulders() []string {
	var out []string
	for _, m := range p.site.Minters() {
		if sh := strings.TrimSuffix(m.Shoulder, "/"); p.sess.key.MayMint(sh) {
			out = append(out, sh)
		}
	}
	return out
}

// mintForm shows the mint form, with what was minted or why not.
func (p *page) mintForm(in mintInput, problem string, status int, minted ...string) error {
	v := mintView{In: in, Shoulders: p.shoulders(), Max: mint.MintMax, Minted: minted}
	if status == 0 {
		status = http.StatusOK
	}
	notice := ""
	if len(minted) > 0 {
		notice = "Minted " + strconv.Itoa(len(minted)) + " under " + in.Shoulder + "."
	}
	return p.render(status, view{Title: "Mint", Notice: notice, Error: problem, Page: v}, "mint")
}

// mint mints names under the shoulder chosen, bound to the target given,
// if any.
func (p *page) mint() error {
	f := p.r.PostForm
	in := mintInput{Shoulder: f.Get("shoulder"), N: strings.TrimSpace(f.Get("n")), Target: strings.TrimSpace(f.Get("target"))}
	if !slices.Contains(p.shoulders(), in.Shoulder) {
		return p.mintForm(in, "Choose a shoulder your key may mint under.", http.StatusBadRequest)
	}
	n, err := strconv.Atoi(in.N)
	if err != nil || n < 1 || n > mint.MintMax {
		return p.mintForm(in, mint.ErrMintCount.Error()+".", http.StatusBadRequest)
	}
	var bind *api.BindRequest
	if in.Target != "" {
		bind = &api.BindRequest{Target: in.Target}
	}
	ids, err := p.c.api.Mint(p.r.Context(), p.site, p.sess.key, in.Shoulder, n, bind)
	if err != nil {
		return p.mintForm(in, err.Error(), api.ErrorStatus(err), ids...)
	}
	return p.mintForm(in, "", http.StatusCreated, ids...)
}
