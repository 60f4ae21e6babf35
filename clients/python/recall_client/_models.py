"""The API's schemas as dataclasses. Written by gen_models.py from server/openapi.json: do not edit."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List, Optional  # noqa: F401

from ._wire import Model


@dataclass
class Abstention(Model):
    low_similarity: bool
    no_match: bool
    too_few: bool
    top_similarity: float

    _required = ('low_similarity', 'no_match', 'too_few', 'top_similarity', )
    _wire = {}
    _nested = {}

@dataclass
class Batch(Model):
    duplicate_match: Optional[str] = None
    duplicates: Optional[str] = None
    entities: Optional[List[Entity]] = None
    exact_entity_links: Optional[bool] = None
    memories: Optional[List[Memory]] = None
    no_extract: Optional[bool] = None
    relations: Optional[List[Relation]] = None
    scopes: Optional[List[str]] = None
    sources: Optional[List[WriteSource]] = None

    _required = ()
    _wire = {}
    _nested = {'entities': ('list', 'Entity'), 'memories': ('list', 'Memory'), 'relations': ('list', 'Relation'), 'sources': ('list', 'WriteSource')}

@dataclass
class BrowseQuery(Model):
    from_: Optional[str] = None
    kind: Optional[str] = None
    limit: Optional[int] = None
    offset: Optional[int] = None
    scope: Optional[str] = None
    source: Optional[str] = None
    tag: Optional[str] = None
    text: Optional[str] = None
    to: Optional[str] = None

    _required = ()
    _wire = {'from_': 'from'}
    _nested = {}

@dataclass
class BrowseResult(Model):
    memories: List[MemoryRow]
    more: bool
    sources: List[SourceRow]

    _required = ('memories', 'more', 'sources', )
    _wire = {}
    _nested = {'memories': ('list', 'MemoryRow'), 'sources': ('list', 'SourceRow')}

@dataclass
class Climb(Model):
    replaced: List[int]
    summary: int

    _required = ('replaced', 'summary', )
    _wire = {}
    _nested = {}

@dataclass
class DeleteRequest(Model):
    ids: List[str]
    scopes: Optional[List[str]] = None

    _required = ('ids', )
    _wire = {}
    _nested = {}

@dataclass
class DeleteResponse(Model):
    deleted: int

    _required = ('deleted', )
    _wire = {}
    _nested = {}

@dataclass
class Entity(Model):
    id: str
    name: str
    aliases: Optional[List[str]] = None
    blocked_aliases: Optional[List[str]] = None
    kind: Optional[str] = None
    metadata: Optional[dict] = None

    _required = ('id', 'name', )
    _wire = {}
    _nested = {}

@dataclass
class EntityRef(Model):
    id: str
    name: str
    kind: Optional[str] = None
    speaker: Optional[bool] = None

    _required = ('id', 'name', )
    _wire = {}
    _nested = {}

@dataclass
class FieldError(Model):
    field: str
    problem: str
    limit: Optional[int] = None

    _required = ('field', 'problem', )
    _wire = {}
    _nested = {}

@dataclass
class Filters(Model):
    from_: Optional[str] = None
    kinds: Optional[List[str]] = None
    metadata: Optional[dict] = None
    tags: Optional[List[str]] = None
    tags_mode: Optional[str] = None
    to: Optional[str] = None

    _required = ()
    _wire = {'from_': 'from'}
    _nested = {}

@dataclass
class IngestError(Model):
    problem: str
    last_written: Optional[int] = None
    line: Optional[int] = None

    _required = ('problem', )
    _wire = {}
    _nested = {}

@dataclass
class IngestProgress(Model):
    bytes: int
    lines: int
    result: Result
    done: Optional[bool] = None
    error: Optional[IngestError] = None

    _required = ('bytes', 'lines', 'result', )
    _wire = {}
    _nested = {'error': ('one', 'IngestError'), 'result': ('one', 'Result')}

@dataclass
class Item(Model):
    external_id: str
    id: int
    kind: str
    score: float
    statement_rank: int
    text: str
    tokens: int
    also_said: Optional[List[Restatement]] = None
    attached_to: Optional[int] = None
    context: Optional[str] = None
    covers: Optional[List[int]] = None
    direct: Optional[bool] = None
    entities: Optional[List[str]] = None
    lanes: Optional[dict] = None
    metadata: Optional[dict] = None
    occurred_end: Optional[str] = None
    occurred_start: Optional[str] = None
    order_score: Optional[float] = None
    passage: Optional[Span] = None
    position: Optional[int] = None
    rerank_score: Optional[float] = None
    run: Optional[int] = None
    source_id: Optional[int] = None
    speaker: Optional[str] = None
    stale: Optional[str] = None
    tags: Optional[List[str]] = None
    truncated: Optional[bool] = None

    _required = ('external_id', 'id', 'kind', 'score', 'statement_rank', 'text', 'tokens', )
    _wire = {}
    _nested = {'also_said': ('list', 'Restatement'), 'passage': ('one', 'Span')}

@dataclass
class LeftOut(Model):
    external_id: str
    id: int
    text: str
    why: str

    _required = ('external_id', 'id', 'text', 'why', )
    _wire = {}
    _nested = {}

@dataclass
class MeResponse(Model):
    can_write: bool
    read: List[str]
    user: str
    write: List[str]
    label: Optional[str] = None

    _required = ('can_write', 'read', 'user', 'write', )
    _wire = {}
    _nested = {}

@dataclass
class Memory(Model):
    id: str
    text: str
    covers: Optional[List[str]] = None
    duplicate_of: Optional[str] = None
    embedding: Optional[List[float]] = None
    entities: Optional[List[str]] = None
    expires_at: Optional[str] = None
    kind: Optional[str] = None
    mentioned_at: Optional[str] = None
    metadata: Optional[dict] = None
    occurred_end: Optional[str] = None
    occurred_start: Optional[str] = None
    position: Optional[int] = None
    refers_end: Optional[str] = None
    refers_start: Optional[str] = None
    source: Optional[str] = None
    speaker: Optional[str] = None
    supersedes: Optional[List[str]] = None
    supersedes_at: Optional[str] = None
    tags: Optional[List[str]] = None
    valid_from: Optional[str] = None
    valid_until: Optional[str] = None

    _required = ('id', 'text', )
    _wire = {}
    _nested = {}

@dataclass
class MemoryDetail(Model):
    access_count: int
    created_at: str
    entities: List[EntityRef]
    id: str
    kind: str
    metadata: dict
    neighbours: List[Neighbour]
    relations: List[RelationRef]
    scopes: List[str]
    tags: List[str]
    text: str
    duplicate_of: Optional[str] = None
    expires_at: Optional[str] = None
    last_accessed: Optional[str] = None
    occurred_end: Optional[str] = None
    occurred_start: Optional[str] = None
    position: Optional[int] = None
    source: Optional[str] = None
    source_title: Optional[str] = None
    speaker: Optional[str] = None
    superseded_at: Optional[str] = None
    superseded_by: Optional[str] = None
    valid_from: Optional[str] = None
    valid_until: Optional[str] = None

    _required = ('access_count', 'created_at', 'entities', 'id', 'kind', 'metadata', 'neighbours', 'relations', 'scopes', 'tags', 'text', )
    _wire = {}
    _nested = {'entities': ('list', 'EntityRef'), 'neighbours': ('list', 'Neighbour'), 'relations': ('list', 'RelationRef')}

@dataclass
class MemoryRequest(Model):
    id: str
    scope: Optional[str] = None

    _required = ('id', )
    _wire = {}
    _nested = {}

@dataclass
class MemoryResponse(Model):
    memories: List[MemoryDetail]

    _required = ('memories', )
    _wire = {}
    _nested = {'memories': ('list', 'MemoryDetail')}

@dataclass
class MemoryRow(Model):
    access_count: int
    id: str
    kind: str
    scopes: List[str]
    tags: List[str]
    text: str
    duplicate_of: Optional[str] = None
    expires_at: Optional[str] = None
    last_accessed: Optional[str] = None
    occurred_start: Optional[str] = None
    position: Optional[int] = None
    source: Optional[str] = None
    source_title: Optional[str] = None
    speaker: Optional[str] = None
    superseded_by: Optional[str] = None
    valid_from: Optional[str] = None
    valid_until: Optional[str] = None

    _required = ('access_count', 'id', 'kind', 'scopes', 'tags', 'text', )
    _wire = {}
    _nested = {}

@dataclass
class Neighbour(Model):
    id: str
    kind: str
    position: int
    text: str
    occurred_start: Optional[str] = None
    speaker: Optional[str] = None

    _required = ('id', 'kind', 'position', 'text', )
    _wire = {}
    _nested = {}

@dataclass
class Omitted(Model):
    id: int
    reason: str
    tokens: int

    _required = ('id', 'reason', 'tokens', )
    _wire = {}
    _nested = {}

@dataclass
class Pack(Model):
    abstain: Abstention
    accessed: int
    altitude: str
    budget: int
    items: List[Item]
    omitted: List[Omitted]
    omitted_tokens: int
    passages: str
    query: str
    served_by: str
    sources: List[Source]
    timings: Timings
    used: int
    warnings: List[Warning]
    climbs: Optional[List[Climb]] = None
    cut: Optional[int] = None
    empty: Optional[str] = None
    graph_context: Optional[List[Triplet]] = None
    graph_tokens: Optional[int] = None
    served_why: Optional[str] = None
    window: Optional[Window] = None

    _required = ('abstain', 'accessed', 'altitude', 'budget', 'items', 'omitted', 'omitted_tokens', 'passages', 'query', 'served_by', 'sources', 'timings', 'used', 'warnings', )
    _wire = {}
    _nested = {'abstain': ('one', 'Abstention'), 'climbs': ('list', 'Climb'), 'graph_context': ('list', 'Triplet'), 'items': ('list', 'Item'), 'omitted': ('list', 'Omitted'), 'sources': ('list', 'Source'), 'timings': ('one', 'Timings'), 'warnings': ('list', 'Warning'), 'window': ('one', 'Window')}

@dataclass
class Problem(Model):
    status: int
    title: str
    type: str
    detail: Optional[str] = None
    errors: Optional[List[FieldError]] = None

    _required = ('status', 'title', 'type', )
    _wire = {}
    _nested = {'errors': ('list', 'FieldError')}

@dataclass
class PruneRequest(Model):
    at: Optional[str] = None
    scopes: Optional[List[str]] = None

    _required = ()
    _wire = {}
    _nested = {}

@dataclass
class PruneResponse(Model):
    deleted: int

    _required = ('deleted', )
    _wire = {}
    _nested = {}

@dataclass
class RecallRequest(Model):
    budget: int
    query: str
    altitude: Optional[str] = None
    as_of: Optional[str] = None
    filters: Optional[Filters] = None
    graph_context: Optional[bool] = None
    label: Optional[str] = None
    mark_stale: Optional[bool] = None
    no_rerank: Optional[bool] = None
    passages: Optional[str] = None
    read: Optional[List[str]] = None
    read_your_writes: Optional[bool] = None
    window: Optional[ServerWindow] = None
    write: Optional[List[str]] = None

    _required = ('budget', 'query', )
    _wire = {}
    _nested = {'filters': ('one', 'Filters'), 'window': ('one', 'ServerWindow')}

@dataclass
class Receipt(Model):
    at: str
    scopes: List[str]
    tables: dict
    dry_run: Optional[bool] = None

    _required = ('at', 'scopes', 'tables', )
    _wire = {}
    _nested = {}

@dataclass
class Relation(Model):
    from_: str
    to: str
    memory: Optional[str] = None
    predicate: Optional[str] = None
    weight: Optional[float] = None

    _required = ('from_', 'to', )
    _wire = {'from_': 'from'}
    _nested = {}

@dataclass
class RelationRef(Model):
    holds: bool
    object: str
    predicate: str
    subject: str
    weight: float
    evidence: Optional[str] = None

    _required = ('holds', 'object', 'predicate', 'subject', 'weight', )
    _wire = {}
    _nested = {}

@dataclass
class Restatement(Model):
    external_id: str
    id: int
    occurred_start: Optional[str] = None
    source_id: Optional[int] = None

    _required = ('external_id', 'id', )
    _wire = {}
    _nested = {}

@dataclass
class Result(Model):
    covered: int
    duplicates: int
    entities: int
    extracted: int
    memories: int
    mentions: int
    pruned: int
    relations: int
    sources: int
    superseded: int
    updated: int

    _required = ('covered', 'duplicates', 'entities', 'extracted', 'memories', 'mentions', 'pruned', 'relations', 'sources', 'superseded', 'updated', )
    _wire = {}
    _nested = {}

@dataclass
class ServerWindow(Model):
    end: str
    start: str

    _required = ('end', 'start', )
    _wire = {}
    _nested = {}

@dataclass
class Source(Model):
    external_id: str
    id: int
    metadata: Optional[dict] = None
    occurred_at: Optional[str] = None
    title: Optional[str] = None
    uri: Optional[str] = None

    _required = ('external_id', 'id', )
    _wire = {}
    _nested = {}

@dataclass
class SourceRow(Model):
    id: str
    memories: int
    occurred_at: Optional[str] = None
    title: Optional[str] = None

    _required = ('id', 'memories', )
    _wire = {}
    _nested = {}

@dataclass
class Span(Model):
    end: int
    start: int

    _required = ('end', 'start', )
    _wire = {}
    _nested = {}

@dataclass
class SummarizeRequest(Model):
    by: Optional[List[str]] = None
    max_tokens: Optional[int] = None
    scopes: Optional[List[str]] = None

    _required = ()
    _wire = {}
    _nested = {}

@dataclass
class SummarizeResponse(Model):
    covered: int
    groups: dict
    pruned: int
    written: int

    _required = ('covered', 'groups', 'pruned', 'written', )
    _wire = {}
    _nested = {}

@dataclass
class SupersedeRequest(Model):
    by: str
    supersedes: List[str]
    at: Optional[str] = None
    scopes: Optional[List[str]] = None

    _required = ('by', 'supersedes', )
    _wire = {}
    _nested = {}

@dataclass
class SupersedeResponse(Model):
    superseded: int

    _required = ('superseded', )
    _wire = {}
    _nested = {}

@dataclass
class Timings(Model):
    access_ns: int
    embed_ns: int
    entities_ns: int
    order_ns: int
    pack_ns: int
    rerank_ns: int
    statement_ns: int
    total_ns: int

    _required = ('access_ns', 'embed_ns', 'entities_ns', 'order_ns', 'pack_ns', 'rerank_ns', 'statement_ns', 'total_ns', )
    _wire = {}
    _nested = {}

@dataclass
class TraceCandidate(Model):
    decision: str
    external_id: str
    fused_rank: int
    id: int
    lanes: dict
    rrf: float
    score: float
    text: str
    tokens: int
    why: str
    merit_rank: Optional[int] = None
    order_score: Optional[float] = None
    rerank_score: Optional[float] = None

    _required = ('decision', 'external_id', 'fused_rank', 'id', 'lanes', 'rrf', 'score', 'text', 'tokens', 'why', )
    _wire = {}
    _nested = {}

@dataclass
class TraceLane(Model):
    adds: float
    rank: int
    score: float

    _required = ('adds', 'rank', 'score', )
    _wire = {}
    _nested = {}

@dataclass
class TraceLaneList(Model):
    ids: List[str]
    lane: str
    weight: float

    _required = ('ids', 'lane', 'weight', )
    _wire = {}
    _nested = {}

@dataclass
class TraceResponse(Model):
    candidates: List[TraceCandidate]
    k: int
    lanes: List[TraceLaneList]
    left_out: List[LeftOut]
    mentions: List[str]
    pack: Pack
    search_text: str

    _required = ('candidates', 'k', 'lanes', 'left_out', 'mentions', 'pack', 'search_text', )
    _wire = {}
    _nested = {'candidates': ('list', 'TraceCandidate'), 'lanes': ('list', 'TraceLaneList'), 'left_out': ('list', 'LeftOut'), 'pack': ('one', 'Pack')}

@dataclass
class Triplet(Model):
    mass: float
    object: str
    predicate: str
    relation: int
    subject: str
    weight: float
    evidence: Optional[str] = None

    _required = ('mass', 'object', 'predicate', 'relation', 'subject', 'weight', )
    _wire = {}
    _nested = {}

@dataclass
class Warning(Model):
    message: str
    stage: str

    _required = ('message', 'stage', )
    _wire = {}
    _nested = {}

@dataclass
class Window(Model):
    end: str
    start: str
    text: str

    _required = ('end', 'start', 'text', )
    _wire = {}
    _nested = {}

@dataclass
class WriteSource(Model):
    id: str
    metadata: Optional[dict] = None
    occurred_at: Optional[str] = None
    title: Optional[str] = None
    uri: Optional[str] = None

    _required = ('id', )
    _wire = {}
    _nested = {}

SCHEMAS = {'Abstention': Abstention, 'Batch': Batch, 'BrowseQuery': BrowseQuery, 'BrowseResult': BrowseResult, 'Climb': Climb, 'DeleteRequest': DeleteRequest, 'DeleteResponse': DeleteResponse, 'Entity': Entity, 'EntityRef': EntityRef, 'FieldError': FieldError, 'Filters': Filters, 'IngestError': IngestError, 'IngestProgress': IngestProgress, 'Item': Item, 'LeftOut': LeftOut, 'MeResponse': MeResponse, 'Memory': Memory, 'MemoryDetail': MemoryDetail, 'MemoryRequest': MemoryRequest, 'MemoryResponse': MemoryResponse, 'MemoryRow': MemoryRow, 'Neighbour': Neighbour, 'Omitted': Omitted, 'Pack': Pack, 'Problem': Problem, 'PruneRequest': PruneRequest, 'PruneResponse': PruneResponse, 'RecallRequest': RecallRequest, 'Receipt': Receipt, 'Relation': Relation, 'RelationRef': RelationRef, 'Restatement': Restatement, 'Result': Result, 'ServerWindow': ServerWindow, 'Source': Source, 'SourceRow': SourceRow, 'Span': Span, 'SummarizeRequest': SummarizeRequest, 'SummarizeResponse': SummarizeResponse, 'SupersedeRequest': SupersedeRequest, 'SupersedeResponse': SupersedeResponse, 'Timings': Timings, 'TraceCandidate': TraceCandidate, 'TraceLane': TraceLane, 'TraceLaneList': TraceLaneList, 'TraceResponse': TraceResponse, 'Triplet': Triplet, 'Warning': Warning, 'Window': Window, 'WriteSource': WriteSource}
