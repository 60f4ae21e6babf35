package server

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/internal/telemetry"
	"github.com/recall-engine/recall/keys"
)

// The MCP tools' inputs. Descriptions are for the model that calls them.

// RecallInput is the recall_search and recall_trace tools' input: POST /v1/recall's names.
type RecallInput struct {
	Query     string     `json:"query" jsonschema:"the question to find evidence for, in natural language"`
	Budget    int        `json:"budget,omitempty" jsonschema:"how many tokens of evidence to return (default 1000)"`
	Filters   *Filters   `json:"filters,omitempty" jsonschema:"optional: only memories of these kinds, tags, metadata or occurred time range"`
	Read      []string   `json:"read,omitempty" jsonschema:"optional: read only these scopes (each one the key may read)"`
	Altitude  string     `json:"altitude,omitempty" jsonschema:"optional: auto (default: summaries in place of memories that do not fit), memories, or summaries"`
	Passages  string     `json:"passages,omitempty" jsonschema:"optional: auto (default: a long memory's matching passage when it saves more than half its tokens or the whole does not fit), whole, or passage"`
	Graph     bool       `json:"graph_context,omitempty" jsonschema:"optional: also return the relations between the question's entities and the evidence's"`
	AsOf      *time.Time `json:"as_of,omitempty" jsonschema:"optional: answer with what held at this time (RFC 3339), leaving out memories not yet or no longer valid or superseded by then (default: now)"`
	MarkStale bool       `json:"mark_stale,omitempty" jsonschema:"optional: return those memories too, each marked with why it no longer holds (the current fact beside the one it replaced)"`
}

// RememberInput is the remember tool's input.
type RememberInput struct {
	Memories []MemoryInput `json:"memories" jsonschema:"the memories to store, each a self-contained statement"`
	Scopes   []string      `json:"scopes,omitempty" jsonschema:"optional: the scopes to store them in (default: the key's only write scope)"`
	// Duplicates, as on a write: a memory restating a stored one is kept, skipped or linked.
	Duplicates string `json:"duplicates,omitempty" jsonschema:"optional: keep (default), skip or link a memory that restates one already stored (same text, ignoring case and punctuation)"`
	// DuplicateMatch, as on a write: the same text, or the same words.
	DuplicateMatch string `json:"duplicate_match,omitempty" jsonschema:"optional: how a restatement is told: text (default: the same text, ignoring case and punctuation) or words (also ignoring contractions, articles and fillers such as just, really, very)"`
}

// MemoryInput is one memory to remember.
type MemoryInput struct {
	ID      string   `json:"id,omitempty" jsonschema:"optional: a stable id; writing the same id again updates the memory (default: a new id)"`
	Text    string   `json:"text" jsonschema:"what to remember"`
	Speaker string   `json:"speaker,omitempty" jsonschema:"optional: who said it"`
	Tags    []string `json:"tags,omitempty" jsonschema:"optional: tags to filter by later"`
	// ExpiresAt, as on the write types: recall leaves the memory out from then on.
	ExpiresAt *time.Time `json:"expires_at,omitempty" jsonschema:"optional: when it stops being true or useful (RFC 3339); from then on it is never recalled"`
	// ValidFrom, ValidUntil and Supersedes, as on the write types.
	ValidFrom  *time.Time `json:"valid_from,omitempty" jsonschema:"optional: when it starts to hold (RFC 3339)"`
	ValidUntil *time.Time `json:"valid_until,omitempty" jsonschema:"optional: when it stops holding (RFC 3339)"`
	Supersedes []string   `json:"supersedes,omitempty" jsonschema:"optional: ids of stored memories (or of this call's) it replaces, as recall_supersede does: search then returns this one instead"`
}

// ForgetInput is the forget tool's input.
type ForgetInput struct {
	IDs    []string `json:"ids" jsonschema:"the ids of the memories to delete (as recall returns them in external_id)"`
	Scopes []string `json:"scopes,omitempty" jsonschema:"optional: the scopes they are in (default: the key's only write scope)"`
}

// RememberOutput lists the ids written.
type RememberOutput struct {
	IDs []string `json:"ids"`
	WriteResponse
}

const recallDescription = `Search the memory for evidence that answers a question. Returns a ranked list of memories ` +
	`(conversation turns, notes, document passages) that fits the token budget, best first, each with its id, source, ` +
	`speaker, time and the retrieval lanes that found it. Ask one specific question per call; use the evidence, and say ` +
	`when it does not answer the question.`

// The MCP tools' names: prefixed with the server's, so that a client that loads several
// memory servers does not meet two "remember" tools.
const (
	ToolSearch    = "recall_search"
	ToolTrace     = "recall_trace"
	ToolRemember  = "recall_remember"
	ToolForget    = "recall_forget"
	ToolSupersede = "recall_supersede"
)

func (s *Server) newMCP() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "recall", Version: s.cfg.Version}, nil)
	no, yes := false, true
	read := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no}
	mcp.AddTool(srv, &mcp.Tool{Name: ToolSearch, Title: "Search the memory", Description: recallDescription,
		Annotations: read, OutputSchema: toolSchema(recall.Pack{})}, s.toolRecall)
	mcp.AddTool(srv, &mcp.Tool{Name: ToolTrace, Title: "Explain a search", Description: `Explain a recall: the same search as ` + ToolSearch +
		`, with every candidate's rank in each retrieval lane and why it was or was not returned. For debugging why evidence is missing.`,
		Annotations: read, OutputSchema: toolSchema(TraceResponse{})}, s.toolTrace)
	mcp.AddTool(srv, &mcp.Tool{Name: ToolRemember, Title: "Remember", Description: `Store memories for later recall: each a ` +
		`self-contained statement (who, what, when). All of them are stored or none is. Returns the ids, which ` + ToolForget + ` takes.`,
		Annotations:  &mcp.ToolAnnotations{DestructiveHint: &no, OpenWorldHint: &no},
		OutputSchema: toolSchema(RememberOutput{})}, s.toolRemember)
	mcp.AddTool(srv, &mcp.Tool{Name: ToolForget, Title: "Forget", Description: `Delete memories by id (the external_id ` + ToolSearch +
		` returns). Returns how many were deleted.`,
		Annotations:  &mcp.ToolAnnotations{DestructiveHint: &yes, IdempotentHint: true, OpenWorldHint: &no},
		OutputSchema: toolSchema(DeleteResponse{})}, s.toolForget)
	mcp.AddTool(srv, &mcp.Tool{Name: ToolSupersede, Title: "Replace outdated memories", Description: `Mark stored memories as ` +
		`no longer true, replaced by a newer stored memory (by its external_id, e.g. one ` + ToolRemember + ` just wrote): ` +
		ToolSearch + ` then returns the newer one instead. Returns how many were marked.`,
		Annotations:  &mcp.ToolAnnotations{DestructiveHint: &no, IdempotentHint: true, OpenWorldHint: &no},
		OutputSchema: toolSchema(SupersedeResponse{})}, s.toolSupersede)
	srv.AddReceivingMiddleware(toolSpans)
	return srv
}

// toolSpans makes each MCP tool call a span ("tools/call recall_search"), under the HTTP
// request's span when there is one.
func toolSpans(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if !ok || call.Params == nil {
			return next(ctx, method, req)
		}
		ctx, span := telemetry.Start(ctx, method+" "+call.Params.Name,
			attribute.String("mcp.method.name", method), attribute.String("gen_ai.tool.name", call.Params.Name))
		res, err := next(ctx, method, req)
		if r, ok := res.(*mcp.CallToolResult); ok && r.IsError && err == nil {
			span.SetStatus(codes.Error, "the tool answered an error")
		}
		telemetry.End(span, err)
		return res, err
	}
}

// mcpHandler is /mcp: streamable HTTP, stateless (each request is authenticated by its own
// bearer key, and its tools run as that key's user).
func (s *Server) mcpHandler() http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, MaxRequestBodyBytes: s.cfg.MaxBody})
	// The key was looked up (and its share taken) below, before the SDK's bearer check,
	// which reads it from the context: one lookup a request, and a database that does not
	// answer is 503, not the SDK's 500.
	verify := func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		k, ok := ctx.Value(mcpKey{}).(keys.Key)
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: k.ID, Extra: map[string]any{"key": k}}, nil
	}
	sdk := auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(s.checkBody(h))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k, p := s.lookup(r.Context(), r)
		if p == nil {
			p = s.keyRate.allow(k.ID)
		}
		if p != nil {
			if p.Status == http.StatusUnauthorized {
				w.Header().Set("WWW-Authenticate", "Bearer")
			}
			p.write(w)
			return
		}
		info(r).key = k.ID
		sdk.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), mcpKey{}, k)))
	})
}

// mcpKey is the context key of an MCP request's looked-up key.
type mcpKey struct{}

// checkBody reads an MCP request's body as REST bodies are read (MaxBody, the one limit of a
// write: a remember call is one) and refuses what JSON decoding would change silently (an
// escaped lone surrogate, invalid UTF-8) before the MCP handler decodes it.
func (s *Server) checkBody(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			h.ServeHTTP(w, r)
			return
		}
		var raw json.RawMessage
		if p := decode(w, r, s.cfg.MaxBody, &raw); p != nil {
			p.write(w)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(raw))
		r.ContentLength = int64(len(raw))
		h.ServeHTTP(w, r)
	})
}

// ServeStdio serves MCP over stdin and stdout as the key whose text is key, until ctx is
// done or stdin closes.
func (s *Server) ServeStdio(ctx context.Context, key string) error {
	return s.ServeMCP(ctx, &mcp.StdioTransport{}, key)
}

// ServeMCP serves MCP on one transport as the key whose text is key: it must authenticate
// now, and is looked up again on every call, so a revoked key stops working at once.
func (s *Server) ServeMCP(ctx context.Context, t mcp.Transport, key string) error {
	if _, err := keys.Lookup(ctx, s.cfg.Keys, key); err != nil {
		return err
	}
	s.stdio.Store(&key)
	return s.mcp.Run(ctx, t)
}

// keyOf is the key a tool call runs as: the HTTP request's, or the stdio server's.
func (s *Server) keyOf(ctx context.Context, req *mcp.CallToolRequest) (keys.Key, error) {
	if req.Extra != nil && req.Extra.TokenInfo != nil {
		if k, ok := req.Extra.TokenInfo.Extra["key"].(keys.Key); ok {
			return k, nil
		}
	}
	if text := s.stdio.Load(); text != nil {
		return keys.Lookup(ctx, s.cfg.Keys, *text)
	}
	return keys.Key{}, keys.ErrInvalid
}

// toolError is a tool failure the model can read: the problem's detail and fields.
func toolError(p *Problem) error {
	var b strings.Builder
	b.WriteString(p.Detail)
	for _, f := range p.Errors {
		if strings.Contains(p.Detail, f.Field+": "+f.Problem) {
			continue // the detail says it already
		}
		fmt.Fprintf(&b, "; %s: %s", f.Field, f.Problem)
		if f.Limit > 0 {
			fmt.Fprintf(&b, " (limit %d)", f.Limit)
		}
	}
	return errors.New(b.String())
}

func (s *Server) recallUser(ctx context.Context, req *mcp.CallToolRequest, in RecallInput) (recall.User, *RecallRequest, error) {
	k, err := s.keyOf(ctx, req)
	if err != nil {
		return recall.User{}, nil, err
	}
	// An agent that remembered something expects to recall it: read-your-writes.
	rr := &RecallRequest{Query: in.Query, Budget: in.Budget, Filters: in.Filters, Scopes: Scopes{Read: in.Read}, Altitude: in.Altitude, Passages: in.Passages,
		GraphContext: in.Graph, ReadYourWrites: true, AsOf: in.AsOf, MarkStale: in.MarkStale}
	if rr.Budget == 0 {
		rr.Budget = recall.DefaultBudget
	}
	u, p := userFor(k, rr.Scopes, "")
	if p != nil {
		return u, nil, toolError(p)
	}
	return u, rr, nil
}

func (s *Server) toolRecall(ctx context.Context, req *mcp.CallToolRequest, in RecallInput) (*mcp.CallToolResult, any, error) {
	return s.toolRecallLike(ctx, req, in, func(ctx context.Context, u recall.User, rr *RecallRequest) (string, any, error) {
		pack, err := s.cfg.Engine.Recall(ctx, u, rr.Query, rr.Budget, rr.options())
		if err != nil {
			return "", nil, err
		}
		return PackText(pack), pack, nil
	})
}

func (s *Server) toolTrace(ctx context.Context, req *mcp.CallToolRequest, in RecallInput) (*mcp.CallToolResult, any, error) {
	return s.toolRecallLike(ctx, req, in, func(ctx context.Context, u recall.User, rr *RecallRequest) (string, any, error) {
		t, err := s.cfg.Engine.Trace(ctx, u, rr.Query, rr.Budget, rr.options())
		if err != nil {
			return "", nil, err
		}
		tr := traceResponse(t)
		var b strings.Builder
		fmt.Fprintf(&b, "%d candidates for %q; %d ordered and packed into the budget.\n", len(tr.Candidates), tr.SearchText, tr.K)
		for i, c := range tr.Candidates {
			if i == 20 {
				fmt.Fprintf(&b, "... %d more in the structured result\n", len(tr.Candidates)-20)
				break
			}
			fmt.Fprintf(&b, "%d. %s (%s): %s\n", c.FusedRank, c.ExternalID, c.Decision, c.Why)
		}
		return b.String(), tr, nil
	})
}

// toolRecallLike runs a recall or a trace tool call: the key's user, a slot, the timeout;
// run returns the text for the model and the structured result.
func (s *Server) toolRecallLike(ctx context.Context, req *mcp.CallToolRequest, in RecallInput,
	run func(context.Context, recall.User, *RecallRequest) (string, any, error)) (*mcp.CallToolResult, any, error) {
	u, rr, err := s.recallUser(ctx, req, in)
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout(readCall))
	defer cancel()
	var text string
	var out any
	if err := s.call(ctx, readCall, func(ctx context.Context) (err error) { text, out, err = run(ctx, u, rr); return err }); err != nil {
		return nil, nil, toolError(problemFor(err))
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, out, nil
}

func (s *Server) toolRemember(ctx context.Context, req *mcp.CallToolRequest, in RememberInput) (*mcp.CallToolResult, any, error) {
	w := WriteRequest{Scopes: in.Scopes, Duplicates: in.Duplicates, DuplicateMatch: in.DuplicateMatch}
	out := RememberOutput{IDs: []string{}}
	for _, m := range in.Memories {
		id := m.ID
		if id == "" {
			b := make([]byte, 8)
			_, _ = rand.Read(b)
			id = "mem-" + hex.EncodeToString(b)
		}
		w.Memories = append(w.Memories, recall.Memory{ID: id, Text: m.Text, Speaker: m.Speaker, Tags: m.Tags, ExpiresAt: m.ExpiresAt,
			ValidFrom: m.ValidFrom, ValidUntil: m.ValidUntil, Supersedes: m.Supersedes})
		out.IDs = append(out.IDs, id)
	}
	return s.toolWriteLike(ctx, req, in.Scopes, func(ctx context.Context, u recall.User) (string, any, error) {
		res, err := s.cfg.Engine.Write(ctx, u, w)
		out.WriteResponse = res
		return fmt.Sprintf("stored %d memories (%d updated): %s", res.Memories, res.Updated, strings.Join(out.IDs, ", ")), out, err
	})
}

func (s *Server) toolForget(ctx context.Context, req *mcp.CallToolRequest, in ForgetInput) (*mcp.CallToolResult, any, error) {
	return s.toolWriteLike(ctx, req, in.Scopes, func(ctx context.Context, u recall.User) (string, any, error) {
		n, err := s.cfg.Engine.Delete(ctx, u, in.Scopes, in.IDs)
		return fmt.Sprintf("deleted %d memories", n), DeleteResponse{Deleted: n}, err
	})
}

func (s *Server) toolSupersede(ctx context.Context, req *mcp.CallToolRequest, in SupersedeRequest) (*mcp.CallToolResult, any, error) {
	return s.toolWriteLike(ctx, req, in.Scopes, func(ctx context.Context, u recall.User) (string, any, error) {
		n, err := s.cfg.Engine.Supersede(ctx, u, in.Scopes, in.By, in.Supersedes, in.At)
		return fmt.Sprintf("marked %d memories superseded by %s", n, in.By), SupersedeResponse{Superseded: n}, err
	})
}

// toolWriteLike runs a remember, forget or supersede tool call: the key's user for scopes, a
// write slot (as over HTTP), the write timeout; run returns the text for the model and the
// structured result.
func (s *Server) toolWriteLike(ctx context.Context, req *mcp.CallToolRequest, scopes []string,
	run func(context.Context, recall.User) (string, any, error)) (*mcp.CallToolResult, any, error) {
	k, err := s.keyOf(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	u, p := writerFor(k, scopes)
	if p != nil {
		return nil, nil, toolError(p)
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout(writeCall))
	defer cancel()
	var text string
	var out any
	if err := s.call(ctx, writeCall, func(ctx context.Context) (err error) { text, out, err = run(ctx, u); return err }); err != nil {
		return nil, nil, toolError(problemFor(err))
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, out, nil
}
