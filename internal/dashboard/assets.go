package dashboard

import (
	"embed"
	"html/template"
	"io/fs"
	"net/http"
)

// assets are the page's files, embedded so the binary serves everything
// and the page loads nothing from anywhere else.
//
//go:embed assets
var assets embed.FS

var indexTemplate = template.Must(template.ParseFS(assets, "assets/index.html"))

func staticFiles() http.Handler {
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	return http.StripPrefix("/static/", http.FileServerFS(sub))
}

// index serves the page with its CSRF token and whether actions show.
func (s *Server) index(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = indexTemplate.Execute(w, map[string]any{"CSRF": s.guard.csrf, "ReadOnly": s.cfg.ReadOnly})
}
