package server

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/keys"
)

// EraseResponse is DELETE /v1/scopes/{scope}'s answer: the receipt.
type EraseResponse = recall.EraseReceipt

// eraseScope removes everything of the scope set the path names ("team", or "other,team":
// exactly that set) for an admin key (recall keys create --admin; 403 for any other key,
// before anything is read), as Engine.Erase does, and answers the receipt: each table's rows
// of the set and the time. ?dry_run=true counts and removes nothing. It takes a write slot.
func (s *Server) eraseScope(w http.ResponseWriter, r *http.Request, k keys.Key) {
	var dry bool
	switch v := r.URL.Query().Get("dry_run"); v {
	case "", "false", "0":
	case "true", "1":
		dry = true
	default:
		problem(http.StatusBadRequest, "invalid", fmt.Sprintf("dry_run %q: want true or false", v),
			FieldError{Field: "dry_run", Problem: "want true or false"}).write(w)
		return
	}
	set := strings.Split(r.PathValue("scope"), ",")
	ctx, cancel := deadline(w, r, s.timeout(writeCall))
	defer cancel()
	admin, err := keys.Admin(ctx, s.cfg.Keys, k.ID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if !admin {
		problem(http.StatusForbidden, "admin", "erasing a scope set takes an admin key (recall keys create --admin)").write(w)
		return
	}
	user := recall.User{ID: k.User, Read: set, Write: set}
	var out recall.EraseReceipt
	err = s.call(ctx, writeCall, func(ctx context.Context) (err error) {
		out, err = s.cfg.Engine.Erase(ctx, user, set, dry)
		return err
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}
