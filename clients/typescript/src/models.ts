// The API's schemas. Written by gen-models.mjs from server/openapi.json: do not edit.

export interface Abstention {
  "low_similarity": boolean;
  "no_match": boolean;
  "too_few": boolean;
  "top_similarity": number;
}

export interface Batch {
  "duplicate_match"?: string;
  "duplicates"?: string;
  "entities"?: Entity[];
  "exact_entity_links"?: boolean;
  "memories"?: Memory[];
  "no_extract"?: boolean;
  "relations"?: Relation[];
  "scopes"?: string[];
  "sources"?: WriteSource[];
}

export interface BrowseQuery {
  "from"?: string;
  "kind"?: string;
  "limit"?: number;
  "offset"?: number;
  "scope"?: string;
  "source"?: string;
  "tag"?: string;
  "text"?: string;
  "to"?: string;
}

export interface BrowseResult {
  "memories": MemoryRow[];
  "more": boolean;
  "sources": SourceRow[];
}

export interface Climb {
  "replaced": number[];
  "summary": number;
}

export interface DeleteRequest {
  "ids": string[];
  "scopes"?: string[];
}

export interface DeleteResponse {
  "deleted": number;
}

export interface Entity {
  "aliases"?: string[];
  "blocked_aliases"?: string[];
  "id": string;
  "kind"?: string;
  "metadata"?: Record<string, unknown>;
  "name": string;
}

export interface EntityRef {
  "id": string;
  "kind"?: string;
  "name": string;
  "speaker"?: boolean;
}

export interface FieldError {
  "field": string;
  "limit"?: number;
  "problem": string;
}

export interface Filters {
  "from"?: string;
  "kinds"?: string[];
  "metadata"?: Record<string, unknown>;
  "tags"?: string[];
  "tags_mode"?: string;
  "to"?: string;
}

export interface IngestError {
  "last_written"?: number;
  "line"?: number;
  "problem": string;
}

export interface IngestProgress {
  "bytes": number;
  "done"?: boolean;
  "error"?: IngestError;
  "lines": number;
  "result": Result;
}

export interface Item {
  "also_said"?: Restatement[];
  "attached_to"?: number;
  "context"?: string;
  "covers"?: number[];
  "direct"?: boolean;
  "entities"?: string[];
  "external_id": string;
  "id": number;
  "kind": string;
  "lanes"?: Record<string, unknown>;
  "metadata"?: Record<string, unknown>;
  "occurred_end"?: string;
  "occurred_start"?: string;
  "order_score"?: number;
  "passage"?: Span;
  "position"?: number;
  "rerank_score"?: number;
  "run"?: number;
  "score": number;
  "source_id"?: number;
  "speaker"?: string;
  "stale"?: string;
  "statement_rank": number;
  "tags"?: string[];
  "text": string;
  "tokens": number;
  "truncated"?: boolean;
}

export interface LeftOut {
  "external_id": string;
  "id": number;
  "text": string;
  "why": string;
}

export interface MeResponse {
  "can_write": boolean;
  "label"?: string;
  "read": string[];
  "user": string;
  "write": string[];
}

export interface Memory {
  "covers"?: string[];
  "duplicate_of"?: string;
  "embedding"?: number[];
  "entities"?: string[];
  "expires_at"?: string;
  "id": string;
  "kind"?: string;
  "mentioned_at"?: string;
  "metadata"?: Record<string, unknown>;
  "occurred_end"?: string;
  "occurred_start"?: string;
  "position"?: number;
  "refers_end"?: string;
  "refers_start"?: string;
  "source"?: string;
  "speaker"?: string;
  "supersedes"?: string[];
  "supersedes_at"?: string;
  "tags"?: string[];
  "text": string;
  "valid_from"?: string;
  "valid_until"?: string;
}

export interface MemoryDetail {
  "access_count": number;
  "created_at": string;
  "duplicate_of"?: string;
  "entities": EntityRef[];
  "expires_at"?: string;
  "id": string;
  "kind": string;
  "last_accessed"?: string;
  "metadata": Record<string, unknown>;
  "neighbours": Neighbour[];
  "occurred_end"?: string;
  "occurred_start"?: string;
  "position"?: number;
  "relations": RelationRef[];
  "scopes": string[];
  "source"?: string;
  "source_title"?: string;
  "speaker"?: string;
  "superseded_at"?: string;
  "superseded_by"?: string;
  "tags": string[];
  "text": string;
  "valid_from"?: string;
  "valid_until"?: string;
}

export interface MemoryRequest {
  "id": string;
  "scope"?: string;
}

export interface MemoryResponse {
  "memories": MemoryDetail[];
}

export interface MemoryRow {
  "access_count": number;
  "duplicate_of"?: string;
  "expires_at"?: string;
  "id": string;
  "kind": string;
  "last_accessed"?: string;
  "occurred_start"?: string;
  "position"?: number;
  "scopes": string[];
  "source"?: string;
  "source_title"?: string;
  "speaker"?: string;
  "superseded_by"?: string;
  "tags": string[];
  "text": string;
  "valid_from"?: string;
  "valid_until"?: string;
}

export interface Neighbour {
  "id": string;
  "kind": string;
  "occurred_start"?: string;
  "position": number;
  "speaker"?: string;
  "text": string;
}

export interface Omitted {
  "id": number;
  "reason": string;
  "tokens": number;
}

export interface Pack {
  "abstain": Abstention;
  "accessed": number;
  "altitude": string;
  "budget": number;
  "climbs"?: Climb[];
  "cut"?: number;
  "empty"?: string;
  "graph_context"?: Triplet[];
  "graph_tokens"?: number;
  "items": Item[];
  "omitted": Omitted[];
  "omitted_tokens": number;
  "passages": string;
  "query": string;
  "served_by": string;
  "served_why"?: string;
  "sources": Source[];
  "timings": Timings;
  "used": number;
  "warnings": Warning[];
  "window"?: Window;
}

export interface Problem {
  "detail"?: string;
  "errors"?: FieldError[];
  "status": number;
  "title": string;
  "type": string;
}

export interface PruneRequest {
  "at"?: string;
  "scopes"?: string[];
}

export interface PruneResponse {
  "deleted": number;
}

export interface RecallRequest {
  "altitude"?: string;
  "as_of"?: string;
  "budget": number;
  "filters"?: Filters;
  "graph_context"?: boolean;
  "label"?: string;
  "mark_stale"?: boolean;
  "no_rerank"?: boolean;
  "passages"?: string;
  "query": string;
  "read"?: string[];
  "read_your_writes"?: boolean;
  "window"?: ServerWindow;
  "write"?: string[];
}

export interface Receipt {
  "at": string;
  "dry_run"?: boolean;
  "scopes": string[];
  "tables": Record<string, unknown>;
}

export interface Relation {
  "from": string;
  "memory"?: string;
  "predicate"?: string;
  "to": string;
  "weight"?: number;
}

export interface RelationRef {
  "evidence"?: string;
  "holds": boolean;
  "object": string;
  "predicate": string;
  "subject": string;
  "weight": number;
}

export interface Restatement {
  "external_id": string;
  "id": number;
  "occurred_start"?: string;
  "source_id"?: number;
}

export interface Result {
  "covered": number;
  "duplicates": number;
  "entities": number;
  "extracted": number;
  "memories": number;
  "mentions": number;
  "pruned": number;
  "relations": number;
  "sources": number;
  "superseded": number;
  "updated": number;
}

export interface ServerWindow {
  "end": string;
  "start": string;
}

export interface Source {
  "external_id": string;
  "id": number;
  "metadata"?: Record<string, unknown>;
  "occurred_at"?: string;
  "title"?: string;
  "uri"?: string;
}

export interface SourceRow {
  "id": string;
  "memories": number;
  "occurred_at"?: string;
  "title"?: string;
}

export interface Span {
  "end": number;
  "start": number;
}

export interface SummarizeRequest {
  "by"?: string[];
  "max_tokens"?: number;
  "scopes"?: string[];
}

export interface SummarizeResponse {
  "covered": number;
  "groups": Record<string, unknown>;
  "pruned": number;
  "written": number;
}

export interface SupersedeRequest {
  "at"?: string;
  "by": string;
  "scopes"?: string[];
  "supersedes": string[];
}

export interface SupersedeResponse {
  "superseded": number;
}

export interface Timings {
  "access_ns": number;
  "embed_ns": number;
  "entities_ns": number;
  "order_ns": number;
  "pack_ns": number;
  "rerank_ns": number;
  "statement_ns": number;
  "total_ns": number;
}

export interface TraceCandidate {
  "decision": string;
  "external_id": string;
  "fused_rank": number;
  "id": number;
  "lanes": Record<string, unknown>;
  "merit_rank"?: number;
  "order_score"?: number;
  "rerank_score"?: number;
  "rrf": number;
  "score": number;
  "text": string;
  "tokens": number;
  "why": string;
}

export interface TraceLane {
  "adds": number;
  "rank": number;
  "score": number;
}

export interface TraceLaneList {
  "ids": string[];
  "lane": string;
  "weight": number;
}

export interface TraceResponse {
  "candidates": TraceCandidate[];
  "k": number;
  "lanes": TraceLaneList[];
  "left_out": LeftOut[];
  "mentions": string[];
  "pack": Pack;
  "search_text": string;
}

export interface Triplet {
  "evidence"?: string;
  "mass": number;
  "object": string;
  "predicate": string;
  "relation": number;
  "subject": string;
  "weight": number;
}

export interface Warning {
  "message": string;
  "stage": string;
}

export interface Window {
  "end": string;
  "start": string;
  "text": string;
}

export interface WriteSource {
  "id": string;
  "metadata"?: Record<string, unknown>;
  "occurred_at"?: string;
  "title"?: string;
  "uri"?: string;
}

/** Each schema's properties (with the schema a property holds, or null), and its required ones. */
export const SCHEMAS: Record<string, { properties: Record<string, string | null>; required: string[] }> = {
  Abstention: { properties: { "low_similarity": null, "no_match": null, "too_few": null, "top_similarity": null }, required: ["low_similarity","no_match","too_few","top_similarity"] },
  Batch: { properties: { "duplicate_match": null, "duplicates": null, "entities": "Entity", "exact_entity_links": null, "memories": "Memory", "no_extract": null, "relations": "Relation", "scopes": null, "sources": "WriteSource" }, required: [] },
  BrowseQuery: { properties: { "from": null, "kind": null, "limit": null, "offset": null, "scope": null, "source": null, "tag": null, "text": null, "to": null }, required: [] },
  BrowseResult: { properties: { "memories": "MemoryRow", "more": null, "sources": "SourceRow" }, required: ["memories","more","sources"] },
  Climb: { properties: { "replaced": null, "summary": null }, required: ["replaced","summary"] },
  DeleteRequest: { properties: { "ids": null, "scopes": null }, required: ["ids"] },
  DeleteResponse: { properties: { "deleted": null }, required: ["deleted"] },
  Entity: { properties: { "aliases": null, "blocked_aliases": null, "id": null, "kind": null, "metadata": null, "name": null }, required: ["id","name"] },
  EntityRef: { properties: { "id": null, "kind": null, "name": null, "speaker": null }, required: ["id","name"] },
  FieldError: { properties: { "field": null, "limit": null, "problem": null }, required: ["field","problem"] },
  Filters: { properties: { "from": null, "kinds": null, "metadata": null, "tags": null, "tags_mode": null, "to": null }, required: [] },
  IngestError: { properties: { "last_written": null, "line": null, "problem": null }, required: ["problem"] },
  IngestProgress: { properties: { "bytes": null, "done": null, "error": "IngestError", "lines": null, "result": "Result" }, required: ["bytes","lines","result"] },
  Item: { properties: { "also_said": "Restatement", "attached_to": null, "context": null, "covers": null, "direct": null, "entities": null, "external_id": null, "id": null, "kind": null, "lanes": null, "metadata": null, "occurred_end": null, "occurred_start": null, "order_score": null, "passage": "Span", "position": null, "rerank_score": null, "run": null, "score": null, "source_id": null, "speaker": null, "stale": null, "statement_rank": null, "tags": null, "text": null, "tokens": null, "truncated": null }, required: ["external_id","id","kind","score","statement_rank","text","tokens"] },
  LeftOut: { properties: { "external_id": null, "id": null, "text": null, "why": null }, required: ["external_id","id","text","why"] },
  MeResponse: { properties: { "can_write": null, "label": null, "read": null, "user": null, "write": null }, required: ["can_write","read","user","write"] },
  Memory: { properties: { "covers": null, "duplicate_of": null, "embedding": null, "entities": null, "expires_at": null, "id": null, "kind": null, "mentioned_at": null, "metadata": null, "occurred_end": null, "occurred_start": null, "position": null, "refers_end": null, "refers_start": null, "source": null, "speaker": null, "supersedes": null, "supersedes_at": null, "tags": null, "text": null, "valid_from": null, "valid_until": null }, required: ["id","text"] },
  MemoryDetail: { properties: { "access_count": null, "created_at": null, "duplicate_of": null, "entities": "EntityRef", "expires_at": null, "id": null, "kind": null, "last_accessed": null, "metadata": null, "neighbours": "Neighbour", "occurred_end": null, "occurred_start": null, "position": null, "relations": "RelationRef", "scopes": null, "source": null, "source_title": null, "speaker": null, "superseded_at": null, "superseded_by": null, "tags": null, "text": null, "valid_from": null, "valid_until": null }, required: ["access_count","created_at","entities","id","kind","metadata","neighbours","relations","scopes","tags","text"] },
  MemoryRequest: { properties: { "id": null, "scope": null }, required: ["id"] },
  MemoryResponse: { properties: { "memories": "MemoryDetail" }, required: ["memories"] },
  MemoryRow: { properties: { "access_count": null, "duplicate_of": null, "expires_at": null, "id": null, "kind": null, "last_accessed": null, "occurred_start": null, "position": null, "scopes": null, "source": null, "source_title": null, "speaker": null, "superseded_by": null, "tags": null, "text": null, "valid_from": null, "valid_until": null }, required: ["access_count","id","kind","scopes","tags","text"] },
  Neighbour: { properties: { "id": null, "kind": null, "occurred_start": null, "position": null, "speaker": null, "text": null }, required: ["id","kind","position","text"] },
  Omitted: { properties: { "id": null, "reason": null, "tokens": null }, required: ["id","reason","tokens"] },
  Pack: { properties: { "abstain": "Abstention", "accessed": null, "altitude": null, "budget": null, "climbs": "Climb", "cut": null, "empty": null, "graph_context": "Triplet", "graph_tokens": null, "items": "Item", "omitted": "Omitted", "omitted_tokens": null, "passages": null, "query": null, "served_by": null, "served_why": null, "sources": "Source", "timings": "Timings", "used": null, "warnings": "Warning", "window": "Window" }, required: ["abstain","accessed","altitude","budget","items","omitted","omitted_tokens","passages","query","served_by","sources","timings","used","warnings"] },
  Problem: { properties: { "detail": null, "errors": "FieldError", "status": null, "title": null, "type": null }, required: ["status","title","type"] },
  PruneRequest: { properties: { "at": null, "scopes": null }, required: [] },
  PruneResponse: { properties: { "deleted": null }, required: ["deleted"] },
  RecallRequest: { properties: { "altitude": null, "as_of": null, "budget": null, "filters": "Filters", "graph_context": null, "label": null, "mark_stale": null, "no_rerank": null, "passages": null, "query": null, "read": null, "read_your_writes": null, "window": "ServerWindow", "write": null }, required: ["budget","query"] },
  Receipt: { properties: { "at": null, "dry_run": null, "scopes": null, "tables": null }, required: ["at","scopes","tables"] },
  Relation: { properties: { "from": null, "memory": null, "predicate": null, "to": null, "weight": null }, required: ["from","to"] },
  RelationRef: { properties: { "evidence": null, "holds": null, "object": null, "predicate": null, "subject": null, "weight": null }, required: ["holds","object","predicate","subject","weight"] },
  Restatement: { properties: { "external_id": null, "id": null, "occurred_start": null, "source_id": null }, required: ["external_id","id"] },
  Result: { properties: { "covered": null, "duplicates": null, "entities": null, "extracted": null, "memories": null, "mentions": null, "pruned": null, "relations": null, "sources": null, "superseded": null, "updated": null }, required: ["covered","duplicates","entities","extracted","memories","mentions","pruned","relations","sources","superseded","updated"] },
  ServerWindow: { properties: { "end": null, "start": null }, required: ["end","start"] },
  Source: { properties: { "external_id": null, "id": null, "metadata": null, "occurred_at": null, "title": null, "uri": null }, required: ["external_id","id"] },
  SourceRow: { properties: { "id": null, "memories": null, "occurred_at": null, "title": null }, required: ["id","memories"] },
  Span: { properties: { "end": null, "start": null }, required: ["end","start"] },
  SummarizeRequest: { properties: { "by": null, "max_tokens": null, "scopes": null }, required: [] },
  SummarizeResponse: { properties: { "covered": null, "groups": null, "pruned": null, "written": null }, required: ["covered","groups","pruned","written"] },
  SupersedeRequest: { properties: { "at": null, "by": null, "scopes": null, "supersedes": null }, required: ["by","supersedes"] },
  SupersedeResponse: { properties: { "superseded": null }, required: ["superseded"] },
  Timings: { properties: { "access_ns": null, "embed_ns": null, "entities_ns": null, "order_ns": null, "pack_ns": null, "rerank_ns": null, "statement_ns": null, "total_ns": null }, required: ["access_ns","embed_ns","entities_ns","order_ns","pack_ns","rerank_ns","statement_ns","total_ns"] },
  TraceCandidate: { properties: { "decision": null, "external_id": null, "fused_rank": null, "id": null, "lanes": null, "merit_rank": null, "order_score": null, "rerank_score": null, "rrf": null, "score": null, "text": null, "tokens": null, "why": null }, required: ["decision","external_id","fused_rank","id","lanes","rrf","score","text","tokens","why"] },
  TraceLane: { properties: { "adds": null, "rank": null, "score": null }, required: ["adds","rank","score"] },
  TraceLaneList: { properties: { "ids": null, "lane": null, "weight": null }, required: ["ids","lane","weight"] },
  TraceResponse: { properties: { "candidates": "TraceCandidate", "k": null, "lanes": "TraceLaneList", "left_out": "LeftOut", "mentions": null, "pack": "Pack", "search_text": null }, required: ["candidates","k","lanes","left_out","mentions","pack","search_text"] },
  Triplet: { properties: { "evidence": null, "mass": null, "object": null, "predicate": null, "relation": null, "subject": null, "weight": null }, required: ["mass","object","predicate","relation","subject","weight"] },
  Warning: { properties: { "message": null, "stage": null }, required: ["message","stage"] },
  Window: { properties: { "end": null, "start": null, "text": null }, required: ["end","start","text"] },
  WriteSource: { properties: { "id": null, "metadata": null, "occurred_at": null, "title": null, "uri": null }, required: ["id"] },
};
