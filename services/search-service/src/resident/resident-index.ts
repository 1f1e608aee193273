/**
 * An index's searchable words held in the process (issue 31): per modality, each segment's row
 * fields and, per lexeme, a posting list of the segments whose document holds it, with their
 * positions and weights, as PostgreSQL stored them. Searching it is resident-lexical.ts; keeping it
 * in step with the database is resident-indexes.ts. Pure data: no I/O.
 */
import type { SearchOption } from '../clips';
import type { SegmentHit } from '../search-types';
import { weightOf, type DocumentLexeme } from './tsvector';

/** A segment as the resident index takes it in: its hit's fields (its id as a number) and its two documents' lexemes. */
export interface ResidentSegment extends Omit<SegmentHit, 'id'> {
  id: number;
  /** The weighted document (store.ts doc): what the lexical options match. */
  doc: readonly DocumentLexeme[];
  /** The plain words said (store.ts words, conversation only): what exact_match matches. */
  words: readonly DocumentLexeme[];
}

/** Int32s per posting: the segment's slot, where its positions start, their count << 4 | a bit per weight present. */
const STRIDE = 3;

/**
 * One lexeme's postings, in ascending slot order (slots are only ever appended, and compaction keeps
 * their order).
 */
export class PostingList {
  entries = new Int32Array(STRIDE * 2);
  count = 0;

  push(slot: number, start: number, length: number, weights: number): void {
    if ((this.count + 1) * STRIDE > this.entries.length) {
      const grown = new Int32Array(this.entries.length * 2);
      grown.set(this.entries);
      this.entries = grown;
    }
    const at = this.count++ * STRIDE;
    this.entries[at] = slot;
    this.entries[at + 1] = start;
    this.entries[at + 2] = (length << 4) | weights;
  }

  /** Drops the room kept for growth (after a load: lists grow by doubling). */
  trim(): void {
    if (this.entries.length > this.count * STRIDE) this.entries = this.entries.slice(0, this.count * STRIDE);
  }

  slotAt(entry: number): number {
    return this.entries[entry * STRIDE]!;
  }

  /** A bit per weight code present (1 << code). */
  weightsAt(entry: number): number {
    return this.entries[entry * STRIDE + 2]! & 15;
  }

  /** The entry of `slot` (binary search), or -1. */
  find(slot: number): number {
    let low = 0;
    let high = this.count - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const at = this.entries[middle * STRIDE]!;
      if (at < slot) low = middle + 1;
      else if (at > slot) high = middle - 1;
      else return middle;
    }
    return -1;
  }
}

/** Lexemes to posting lists, and the packed positions (tsvector.ts) the postings point into. */
export class PostingTable {
  readonly lists = new Map<string, PostingList>();
  positions = new Uint16Array(1024);
  used = 0;

  add(slot: number, lexemes: readonly DocumentLexeme[]): void {
    for (const { lexeme, positions } of lexemes) {
      let list = this.lists.get(lexeme);
      if (!list) this.lists.set(lexeme, (list = new PostingList()));
      let weights = 0;
      for (const packed of positions) weights |= 1 << weightOf(packed);
      list.push(slot, this.store(positions), positions.length, weights);
    }
  }

  trim(): void {
    for (const list of this.lists.values()) list.trim();
    if (this.positions.length > this.used) this.positions = this.positions.slice(0, this.used);
  }

  /** The packed positions of `list`'s entry, as a view. */
  positionsAt(list: PostingList, entry: number): Uint16Array {
    const start = list.entries[entry * STRIDE + 1]!;
    return this.positions.subarray(start, start + (list.entries[entry * STRIDE + 2]! >>> 4));
  }

  private store(positions: readonly number[] | Uint16Array): number {
    if (this.used + positions.length > this.positions.length) {
      const grown = new Uint16Array(Math.max(this.positions.length * 2, this.used + positions.length));
      grown.set(this.positions.subarray(0, this.used));
      this.positions = grown;
    }
    const start = this.used;
    this.positions.set(positions, start);
    this.used += positions.length;
    return start;
  }

  /** A table of the postings whose slot `remap` keeps (to its new number), in the same order. */
  compacted(remap: Int32Array): PostingTable {
    const table = new PostingTable();
    for (const [lexeme, list] of this.lists) {
      let kept: PostingList | undefined;
      for (let e = 0; e < list.count; e++) {
        const slot = remap[list.slotAt(e)]!;
        if (slot < 0) continue;
        kept ??= new PostingList();
        const positions = this.positionsAt(list, e);
        kept.push(slot, table.store(positions), positions.length, list.weightsAt(e));
      }
      if (kept) table.lists.set(lexeme, kept);
    }
    return table;
  }
}

/** One modality's segments: their fields by slot, whether each is live, and their postings. */
export class ModalityShard {
  ids: number[] = [];
  videos: number[] = [];
  starts: number[] = [];
  ends: number[] = [];
  texts: string[] = [];
  thumbnails: string[] = [];
  live: boolean[] = [];
  dead = 0;
  doc = new PostingTable();
  words = new PostingTable();

  get size(): number {
    return this.ids.length;
  }

  append(segment: ResidentSegment, video: number): number {
    const slot = this.ids.length;
    this.ids.push(segment.id);
    this.videos.push(video);
    this.starts.push(segment.start);
    this.ends.push(segment.end);
    this.texts.push(segment.text);
    this.thumbnails.push(segment.thumbnailKey);
    this.live.push(true);
    this.doc.add(slot, segment.doc);
    if (segment.words.length > 0) this.words.add(slot, segment.words);
    return slot;
  }

  kill(slot: number): void {
    if (this.live[slot]) {
      this.live[slot] = false;
      this.dead++;
    }
  }

  /** The live segments renumbered from 0 in the same order; `onMove(old, new)` for each kept. */
  compact(onMove: (from: number, to: number) => void): void {
    const remap = new Int32Array(this.size).fill(-1);
    const kept = new ModalityShard();
    for (let slot = 0; slot < this.size; slot++) {
      if (!this.live[slot]) continue;
      const to = kept.ids.length;
      remap[slot] = to;
      kept.ids.push(this.ids[slot]!);
      kept.videos.push(this.videos[slot]!);
      kept.starts.push(this.starts[slot]!);
      kept.ends.push(this.ends[slot]!);
      kept.texts.push(this.texts[slot]!);
      kept.thumbnails.push(this.thumbnails[slot]!);
      kept.live.push(true);
      onMove(slot, to);
    }
    Object.assign(this, kept, { doc: this.doc.compacted(remap), words: this.words.compacted(remap), dead: 0 });
  }
}

/** Dead slots a shard carries before it is compacted: a quarter of it, and at least this many. */
const COMPACT_AFTER_DEAD = 1_000;

/** An index's segments by modality, and its videos (each segment names its video by number). */
export class ResidentIndex {
  readonly shards = new Map<SearchOption, ModalityShard>();
  readonly videoIds: string[] = [];
  private readonly videoNumbers = new Map<string, number>();
  /** Each video's segments, as [modality, slot] pairs. */
  private readonly slotsOfVideo = new Map<number, [SearchOption, number][]>();
  segmentCount = 0;

  videoNumber(videoId: string): number | undefined {
    return this.videoNumbers.get(videoId);
  }

  shard(modality: SearchOption): ModalityShard | undefined {
    return this.shards.get(modality);
  }

  /** Replaces the segments of each of `videoIds` by those of `segments` (none: the video has none now). */
  replaceVideos(videoIds: readonly string[], segments: readonly ResidentSegment[]): void {
    for (const videoId of videoIds) this.removeVideo(videoId);
    for (const segment of segments) {
      let video = this.videoNumbers.get(segment.videoId);
      if (video === undefined) {
        video = this.videoIds.push(segment.videoId) - 1;
        this.videoNumbers.set(segment.videoId, video);
      }
      let shard = this.shards.get(segment.modality);
      if (!shard) this.shards.set(segment.modality, (shard = new ModalityShard()));
      const slots = this.slotsOfVideo.get(video) ?? [];
      slots.push([segment.modality, shard.append(segment, video)]);
      this.slotsOfVideo.set(video, slots);
      this.segmentCount++;
    }
    for (const [modality, shard] of this.shards) {
      if (shard.dead > Math.max(COMPACT_AFTER_DEAD, shard.size / 4)) this.compactShard(modality, shard);
    }
  }

  /** Drops the room kept for growth: a loaded index holds about a sixth less (issue 31, the bench at 2,000 videos: 669 -> 566 bytes a segment, heap and buffers after GC). */
  trim(): void {
    for (const shard of this.shards.values()) {
      shard.doc.trim();
      shard.words.trim();
    }
  }

  private removeVideo(videoId: string): void {
    const video = this.videoNumbers.get(videoId);
    const slots = video === undefined ? undefined : this.slotsOfVideo.get(video);
    if (!slots) return;
    for (const [modality, slot] of slots) this.shards.get(modality)?.kill(slot);
    this.segmentCount -= slots.length;
    this.slotsOfVideo.delete(video!);
  }

  private compactShard(modality: SearchOption, shard: ModalityShard): void {
    const moved = new Map<number, number>();
    shard.compact((from, to) => moved.set(from, to));
    for (const slots of this.slotsOfVideo.values()) {
      for (const pair of slots) if (pair[0] === modality) pair[1] = moved.get(pair[1])!;
    }
  }
}
