package main

import (
	"fmt"
	"net/http"
)

// Invoice is the public invoice schema; its JSON shape must not change.
type Invoice struct {
	ID     string `json:"id"`
	Amount int64  `json:"amount_cents"`
}

func handleInvoice(w http.ResponseWriter, r *http.Request) {
	fmt.Fprintf(w, `{"id":"%s"}`, r.URL.Query().Get("id"))
}

func main() {
	http.HandleFunc("/invoice", handleInvoice)
	_ = http.ListenAndServe(":8081", nil)
}
