/**
 * The collection of a presentation snapshot (PRES-09, PRES-10, PRES-17): a list or a tree of
 * nodes, the selected node and its detail. Owns the node shape and the structural rules: unique
 * node ids, no parent in a list, in a tree every parent present, no cycle and at most 16 levels,
 * node actions naming actions of the snapshot, and the detail belonging to the selected node.
 * Labels, states and references are read by the callbacks validate-presentation.ts passes, so
 * both files apply one rule for each.
 */
import { MAX_PRESENTATION_NODES, MAX_PRESENTATION_TREE_LEVELS } from "../bounds.js";
import {
  at,
  checkCount,
  duplicates,
  index,
  isAbsent,
  member,
  quote,
  quoteList,
  readArray,
  readObject,
  readOneOf,
  rejectUnknown,
} from "../validate/fields.js";
import type { Problems } from "../validate/kit.js";
import type {
  PresentationCollection,
  PresentationDetail,
  PresentationNode,
  PresentationReference,
  PresentationState,
} from "./types-presentation.js";

const COLLECTION = new Set(["kind", "title", "nodes", "selected_node_id", "detail"]);
const NODE = new Set(["id", "parent_id", "state", "label", "secondary", "action_ids", "references"]);
const DETAIL = new Set(["node_id", "title", "body", "references"]);

type Reader<T> = (p: Problems, path: string, raw: unknown) => T | undefined;

export interface CollectionReaders {
  /** The ids of the snapshot's actions, which a node's action_ids must name. */
  actionIds: ReadonlySet<string>;
  references: Reader<PresentationReference[]>;
  label: Reader<string>;
  /** The detail body: multi-line plain text within its byte bound. */
  body: Reader<string>;
  state: Reader<PresentationState>;
}

export function checkCollection(
  p: Problems,
  path: string,
  raw: unknown,
  r: CollectionReaders,
): PresentationCollection | undefined {
  const obj = readObject(p, path, raw);
  if (obj === undefined) return undefined;
  const before = p.count;
  rejectUnknown(p, path, obj, COLLECTION);
  const kind = readOneOf(p, at(path, "kind"), member(obj, "kind"), ["list", "tree"] as const);
  const title = optional(p, at(path, "title"), member(obj, "title"), r.label);
  const nodesPath = at(path, "nodes");
  const rawNodes = isAbsent(member(obj, "nodes")) ? [] : readArray(p, nodesPath, member(obj, "nodes"));
  let nodes: PresentationNode[] | undefined;
  if (rawNodes !== undefined && checkCount(p, nodesPath, rawNodes.length, MAX_PRESENTATION_NODES, "node")) {
    const n = p.count;
    const read = rawNodes.map((item, i) => readNode(p, index(nodesPath, i), item, r));
    if (p.count === n) nodes = read as PresentationNode[];
  }
  if (nodes !== undefined && kind !== undefined) checkStructure(p, nodesPath, nodes, kind);
  const selected = optional(p, at(path, "selected_node_id"), member(obj, "selected_node_id"), r.label);
  if (selected !== undefined && nodes !== undefined && !nodes.some((n) => n.id === selected)) {
    p.add(at(path, "selected_node_id"), `${quote(selected)} is not the id of a node in this collection`);
  }
  const rawDetail = member(obj, "detail");
  const detail = isAbsent(rawDetail) ? undefined : readDetail(p, at(path, "detail"), rawDetail, r);
  // The detail is the selected node's: a frontend never shows one node's body under another (PRES-10).
  if (detail !== undefined && detail.node_id !== selected) {
    p.add(
      at(path, "detail.node_id"),
      `${quote(detail.node_id)} does not match selected_node_id ` +
        `${selected === undefined ? "(absent)" : quote(selected)}`,
    );
  }
  if (p.count !== before || kind === undefined || nodes === undefined) return undefined;
  const c: PresentationCollection = { kind, nodes };
  if (title !== undefined) c.title = title;
  if (selected !== undefined) c.selected_node_id = selected;
  if (detail !== undefined) c.detail = detail;
  return c;
}

function readNode(p: Problems, path: string, raw: unknown, r: CollectionReaders): PresentationNode | undefined {
  const obj = readObject(p, path, raw);
  if (obj === undefined) return undefined;
  const before = p.count;
  rejectUnknown(p, path, obj, NODE);
  const id = r.label(p, at(path, "id"), member(obj, "id"));
  const parent = optional(p, at(path, "parent_id"), member(obj, "parent_id"), r.label);
  const state = optional(p, at(path, "state"), member(obj, "state"), r.state);
  const label = r.label(p, at(path, "label"), member(obj, "label"));
  const secondary = optional(p, at(path, "secondary"), member(obj, "secondary"), r.label);
  const actionIds = readActionIds(p, at(path, "action_ids"), member(obj, "action_ids"), r);
  const references = r.references(p, at(path, "references"), member(obj, "references"));
  if (
    p.count !== before ||
    id === undefined ||
    label === undefined ||
    actionIds === undefined ||
    references === undefined
  )
    return undefined;
  const node: PresentationNode = { id, label, action_ids: actionIds, references };
  if (parent !== undefined) node.parent_id = parent;
  if (state !== undefined) node.state = state;
  if (secondary !== undefined) node.secondary = secondary;
  return node;
}

function readActionIds(p: Problems, path: string, raw: unknown, r: CollectionReaders): string[] | undefined {
  if (isAbsent(raw)) return [];
  const list = readArray(p, path, raw);
  if (list === undefined) return undefined;
  const before = p.count;
  const ids = list.map((v, i) => r.label(p, index(path, i), v));
  ids.forEach((id, i) => {
    if (id !== undefined && !r.actionIds.has(id))
      p.add(index(path, i), `${quote(id)} is not the id of an action in this snapshot`);
  });
  return p.count === before ? (ids as string[]) : undefined;
}

function readDetail(p: Problems, path: string, raw: unknown, r: CollectionReaders): PresentationDetail | undefined {
  const obj = readObject(p, path, raw);
  if (obj === undefined) return undefined;
  const before = p.count;
  rejectUnknown(p, path, obj, DETAIL);
  const nodeId = r.label(p, at(path, "node_id"), member(obj, "node_id"));
  const title = optional(p, at(path, "title"), member(obj, "title"), r.label);
  const body = optional(p, at(path, "body"), member(obj, "body"), r.body);
  const references = r.references(p, at(path, "references"), member(obj, "references"));
  if (p.count !== before || nodeId === undefined || references === undefined) return undefined;
  const d: PresentationDetail = { node_id: nodeId, references };
  if (title !== undefined) d.title = title;
  if (body !== undefined) d.body = body;
  return d;
}

/**
 * PRES-09: unique ids; a list has no parents; a tree has no missing parent, no cycle, and no
 * node deeper than 16 levels (a root is level 1). Iterative, each node's level computed once, so
 * a 256-node chain costs 256 steps and a hostile shape cannot recurse.
 */
function checkStructure(p: Problems, path: string, nodes: readonly PresentationNode[], kind: "list" | "tree"): void {
  const dup = duplicates(nodes.map((n) => n.id));
  if (dup.length > 0) {
    p.add(path, `duplicate node ids ${quoteList(dup)}; node ids are unique within a collection`);
    return;
  }
  if (kind === "list") {
    nodes.forEach((n, i) => {
      if (n.parent_id !== undefined)
        p.add(at(index(path, i), "parent_id"), `${quote(n.parent_id)}: a list node has no parent; use kind "tree"`);
    });
    return;
  }
  const byId = new Map(nodes.map((n, i) => [n.id, i] as const));
  let missing = false;
  nodes.forEach((n, i) => {
    if (n.parent_id !== undefined && !byId.has(n.parent_id)) {
      p.add(at(index(path, i), "parent_id"), `${quote(n.parent_id)} is not the id of a node in this tree`);
      missing = true;
    }
  });
  if (missing) return;
  const level = new Array<number>(nodes.length).fill(0);
  for (let start = 0; start < nodes.length; start++) {
    if ((level[start] ?? 0) > 0) continue;
    // Climb to a node whose level is known (or a root), then assign levels on the way back.
    const chain: number[] = [];
    const onChain = new Set<number>();
    let cursor: number | undefined = start;
    let base = 0;
    while (cursor !== undefined) {
      if ((level[cursor] ?? 0) > 0) {
        base = level[cursor] ?? 0;
        break;
      }
      if (onChain.has(cursor)) {
        p.add(at(index(path, cursor), "parent_id"), `node ${quote(nodes[cursor]?.id ?? "")} is part of a parent cycle`);
        return;
      }
      chain.push(cursor);
      onChain.add(cursor);
      const parent: string | undefined = nodes[cursor]?.parent_id;
      cursor = parent === undefined ? undefined : byId.get(parent);
    }
    for (let k = chain.length - 1; k >= 0; k--) {
      base++;
      const i = chain[k] as number;
      level[i] = base;
      if (base > MAX_PRESENTATION_TREE_LEVELS) {
        p.add(
          index(path, i),
          `node ${quote(nodes[i]?.id ?? "")} is at level ${base}, over the ` +
            `${MAX_PRESENTATION_TREE_LEVELS}-level tree limit`,
        );
        return;
      }
    }
  }
}

function optional<T>(p: Problems, path: string, raw: unknown, read: Reader<T>): T | undefined {
  return isAbsent(raw) ? undefined : read(p, path, raw);
}
