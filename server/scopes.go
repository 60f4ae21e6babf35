package server

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/keys"
	"github.com/recall-engine/recall/records"
)

// EraseResponse is DELETE /v1/scopes/{scope}'s answer: the receipt.
type EraseResponse = recall.EraseReceipt

// eraseScope removes everything of the scope set the path names ("team", or "other,team":
// exactly that set) for an admin key (recall keys create --admin; 403 for any other key,
// before anything is read), as Engine.Erase does, and answers the receipt: each table's rows
// of the set and the time. ?dry_run=true counts and removes nothing. It takes a write slot.
func (s *Server) eraseScope(w http.ResponseWriter, r *http.Request, k keys.Key) {
	dry, p := boolParam(r.URL.Query(), "dry_run")
	if p != nil {
		p.write(w)
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

// exportScope streams one scope set the key reads (?scope=a,b: exactly that set; none: the
// key's only write scope, else its only read scope) as application/x-ndjson native records,
// as recall export writes them: an export header, sources, entities, memories, relations, an
// export_end record with the counts (?embeddings=true adds each memory's embedding). It reads
// one snapshot as the key's user under row security, takes a read slot, and is bounded by
// the write timeout, as an ingest is. A failure before the first line is a problem+json; one
// after it ends the stream without its export_end record, which a loader refuses as cut.
func (s *Server) exportScope(w http.ResponseWriter, r *http.Request, k keys.Key) {
	q := r.URL.Query()
	embeddings, p := boolParam(q, "embeddings")
	if p != nil {
		p.write(w)
		return
	}
	var set []string
	if v := q.Get("scope"); v != "" {
		set = strings.Split(v, ",")
	}
	for i, sc := range set {
		if !slices.Contains(k.Read, sc) {
			problem(http.StatusForbidden, "scope", fmt.Sprintf("the key does not read scope %q", sc),
				FieldError{Field: fmt.Sprintf("scope[%d]", i), Problem: "not one of the key's read scopes"}).write(w)
			return
		}
	}
	user, p := userFor(k, Scopes{}, "")
	if p != nil {
		p.write(w)
		return
	}
	release, busy := s.slot(readCall)
	if busy != nil {
		busy.write(w)
		return
	}
	defer release()
	ctx, cancel := deadline(w, r, s.timeout(writeCall))
	defer cancel()
	var enc *records.Encoder
	flusher, _ := w.(http.Flusher)
	n := 0
	emit := func(rec records.Record) error {
		if enc == nil { // the first line: the answer is a stream from here on
			w.Header().Set("Content-Type", "application/x-ndjson")
			w.Header().Set("Cache-Control", "no-store")
			w.WriteHeader(http.StatusOK)
			enc = records.NewEncoder(w)
		}
		if err := enc.Encode(rec); err != nil {
			return err
		}
		if n++; n%256 == 0 || rec.End != nil {
			if err := enc.Flush(); err != nil {
				return err
			}
			if flusher != nil {
				flusher.Flush()
			}
		}
		return nil
	}
	_, err := s.cfg.Engine.Export(ctx, user, recall.ExportOptions{Scopes: set, Embeddings: embeddings}, emit)
	switch {
	case err != nil && enc == nil:
		s.fail(w, r, err)
	case err != nil:
		info(r).err = err // the stream ends without its export_end line
		_ = enc.Flush()
	}
}

// boolParam reads query parameter name as a boolean (absent: false), or the problem with it.
func boolParam(q url.Values, name string) (bool, *Problem) {
	switch v := q.Get(name); v {
	case "", "false", "0":
		return false, nil
	case "true", "1":
		return true, nil
	default:
		return false, problem(http.StatusBadRequest, "invalid", fmt.Sprintf("%s %q: want true or false", name, v),
			FieldError{Field: name, Problem: "want true or false"})
	}
}
