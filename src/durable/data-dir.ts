import { createHash } from 'node:crypto';
import nodeFs from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { errors, redact } from '../errors';
import type { WorldKeeper, WorldKeeperOf } from '../core/storage';
import { World, type WorldChange, type WorldData, type WorldOptions } from '../store/world';

/**
 * Worlds kept in a data dir (`--data-dir`): each token's world is a file of its own under
 * `worlds/`, named by a hash of the token (never the token itself), holding an append-only log of
 * what its writes changed, record by record (World#takeChanges), after a full state where a
 * fixture was put. A world is loaded back by making those changes again on a copy of the seeded
 * world: the seeded world itself is never written. Each line is `<crc32 hex> <json>`, so that a
 * line a crash cut short is told from a whole one:
 * - a bad last line (a torn write) is dropped, the file cut back to the line before, and logged;
 * - a bad line with whole lines after it (a damaged file) sets the file aside (`.damaged-<time>`),
 *   logged, and the token starts again from the seeded world; every other world is served.
 * `fsync`: `always` syncs each write before its answer goes out; `batch` syncs the files written
 * within BATCH_WINDOW_MS together, in the background, so that a crash of the machine loses at
 * most the writes of the last window and of the sync under way (a crash of the process loses
 * none: each is in its file before its answer). A write the disk refuses (full) is undone in the
 * file and refused with 507; the core then forgets the token's world in memory, which is read
 * back from here (without that write) on its next request.
 * docs/reliability.md says what is kept and what is not (journals and switches stay in memory).
 */
export type FsyncMode = 'always' | 'batch';
export const FSYNC_MODES: readonly FsyncMode[] = ['always', 'batch'];
const BATCH_WINDOW_MS = 50;

/**
 * A log is written again as one line of all its world's changes (its compaction) once it has
 * more lines than this and more than twice as many records as its world has changed: at least
 * half of what it holds was written over since. A world edited over and over stays small on disk
 * and quick to load; a world that only grows (whose log holds nothing written over) is left as it
 * is, as rewriting it would gain only the lines' framing. Checked after each write and on a load.
 */
const COMPACT_AFTER_LINES = 200;

/** What a data dir was made with (`meta.json`): a start with others is refused. */
export interface MadeWith {
  seed: number;
  contacts: number;
  messages: number;
  /** A hash of the fixture file's bytes, or null for a generated world. */
  fixtures: string | null;
  /** A hash of the server profile's bytes (`--conventions`), or null. */
  conventions: string | null;
}

const META = 'meta.json';
const FORMAT = 1;

/** The calls of node:fs a data dir makes: tests put a full disk in their place. */
export type DataDirFs = Pick<
  typeof nodeFs,
  | 'openSync'
  | 'writeSync'
  | 'fsyncSync'
  | 'closeSync'
  | 'open'
  | 'fsync'
  | 'close'
  | 'fstatSync'
  | 'ftruncateSync'
  | 'readFileSync'
  | 'writeFileSync'
  | 'renameSync'
  | 'unlinkSync'
  | 'readdirSync'
  | 'mkdirSync'
  | 'existsSync'
>;

type Line = { state: WorldData } | { change: WorldChange };

export const hashOf = (text: string | Buffer): string => createHash('sha256').update(text).digest('hex');

/**
 * Opens `dir` for worlds made as `madeWith` says, creating it if needed. Throws an Error that says
 * what differs, and what to do, when the dir was made with another seed, fixture or profile.
 */
export function openDataDir(dir: string, madeWith: MadeWith, io: DataDirFs = nodeFs): void {
  const metaFile = path.join(dir, META);
  try {
    io.mkdirSync(path.join(dir, 'worlds'), { recursive: true });
    if (!io.existsSync(metaFile)) {
      io.writeFileSync(metaFile, `${JSON.stringify({ format: FORMAT, madeWith }, null, 2)}\n`);
      return;
    }
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    throw new Error(
      `--data-dir ${dir} cannot be used: ${code === 'ENOTDIR' || code === 'EEXIST' ? 'a file stands where a folder must be (the dir, a folder on its path, or its worlds/)' : message}. Give a directory this process may write in (it is made if missing).`,
    );
  }
  let meta: { format?: unknown; madeWith?: Partial<MadeWith> };
  try {
    meta = JSON.parse(io.readFileSync(metaFile, 'utf8')) as typeof meta;
  } catch (error) {
    throw new Error(`${metaFile} cannot be read (${(error as Error).message}): give another --data-dir.`);
  }
  if (meta.format !== FORMAT)
    throw new Error(`${metaFile} is of another format (${String(meta.format)}): give another --data-dir.`);
  const differ = (Object.keys(madeWith) as (keyof MadeWith)[]).filter(
    (key) => meta.madeWith?.[key] !== madeWith[key],
  );
  if (differ.length > 0)
    throw new Error(
      `--data-dir ${dir} holds worlds made with another ${differ
        .map((key) => `${key} (${String(meta.madeWith?.[key])}, now ${String(madeWith[key])})`)
        .join(
          ', ',
        )}: their changes apply to that world only. Start with the same options, or give another --data-dir (an empty one starts afresh).`,
    );
}

/** A data dir as a core's keeper of worlds (CoreOptions.keeper); `openDataDir` first. */
export function dataDirKeeper(dir: string, fsync: FsyncMode, io: DataDirFs = nodeFs): WorldKeeperOf {
  return (options, log) => new DataDir(dir, fsync, options, log, io);
}

/** What a keeper knows of a world it handed out: its file, its log's lines and the records of their changes, the state it started from. */
interface Kept {
  file: string;
  lines: number;
  records: number;
  state?: WorldData;
}

const recordsOf = (change: WorldChange) =>
  change.contacts.length + change.messages.length + (change.deleted?.length ?? 0);

class DataDir implements WorldKeeper {
  readonly durable = true;
  readonly #worlds: string;
  readonly #fsync: FsyncMode;
  readonly #options: WorldOptions;
  readonly #log: (line: string) => void;
  readonly #io: DataDirFs;
  /** The worlds this keeper handed out or took, tracked: a write to one is appended to its log. */
  readonly #kept = new WeakMap<World, Kept>();
  /** Files written since the last sync (`batch`), synced together at the end of the window. */
  readonly #unsynced = new Set<string>();
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    dir: string,
    fsync: FsyncMode,
    options: WorldOptions,
    log: (line: string) => void,
    io: DataDirFs,
  ) {
    this.#worlds = path.join(dir, 'worlds');
    this.#fsync = fsync;
    this.#options = options;
    this.#log = log;
    this.#io = io;
  }

  restore(token: string, fresh: () => World): World | undefined {
    const file = this.#fileOf(token);
    let bytes: Buffer | undefined;
    try {
      bytes = this.#io.readFileSync(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.#setAside(file, token, error as Error);
    }
    const lines = bytes === undefined ? [] : this.#read(file, token, bytes);
    let world: World;
    let state: WorldData | undefined;
    try {
      const first = lines[0];
      state = first && 'state' in first ? first.state : undefined;
      // Its new ids go on at random: a stream begun again would draw the ids of records it deleted.
      world = state ? World.fromData(state, { ...this.#options, idSeed: undefined }) : fresh();
      for (const line of lines) if ('change' in line) world.applyChanges(line.change);
    } catch (error) {
      this.#setAside(file, token, error as Error);
      world = fresh();
      state = undefined;
    }
    world.trackChanges();
    const records = lines.reduce((sum, line) => sum + ('change' in line ? recordsOf(line.change) : 0), 0);
    const kept: Kept = { file, lines: lines.length, records, ...(state ? { state } : {}) };
    this.#kept.set(world, kept);
    this.#compactIfWrittenOver(world, kept);
    return world;
  }

  save(token: string, world: World): void {
    const kept = this.#kept.get(world);
    if (kept === undefined) {
      // A world this keeper did not hand out: the seeded world again (a reset), or a fixture put.
      world.trackChanges();
      const state = world.builtFromData ? world.toData() : undefined;
      const file = this.#fileOf(token);
      this.#kept.set(world, { file, lines: state ? 1 : 0, records: 0, ...(state ? { state } : {}) });
      if (state) this.#rewrite(file, [{ state }]);
      else this.forget(token);
      return;
    }
    const change = world.takeChanges();
    if (change === undefined) return;
    this.#append(kept.file, [{ change }]);
    kept.lines += 1;
    kept.records += recordsOf(change);
    this.#compactIfWrittenOver(world, kept);
  }

  forget(token: string): void {
    try {
      this.#io.unlinkSync(this.#fileOf(token));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }

  forgetAll(): void {
    for (const name of this.#io.readdirSync(this.#worlds))
      if (name.endsWith('.log')) this.#io.unlinkSync(path.join(this.#worlds, name));
  }

  /** Syncs what the window holds now, before it returns (a server closing). */
  flush(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const file of this.#unsynced) {
      try {
        this.#syncNow(file);
      } catch {
        // A file forgotten since (a reset) needs no sync.
      }
    }
    this.#unsynced.clear();
  }

  /** The file of a token's world: a hash of the token, so that no token is ever a path. */
  #fileOf(token: string): string {
    return path.join(this.#worlds, `${hashOf(token)}.log`);
  }

  /** The lines of a log; a torn last line is cut off, a damaged file set aside (then no lines). */
  #read(file: string, token: string, bytes: Buffer): Line[] {
    const lines: Line[] = [];
    let at = 0;
    let bad: { at: number; why: string } | undefined;
    while (at < bytes.length) {
      const end = bytes.indexOf(0x0a, at);
      const line = decode(bytes.subarray(at, end === -1 ? bytes.length : end), end !== -1);
      if (typeof line === 'string') {
        bad = { at, why: line };
        break;
      }
      lines.push(line);
      at = end + 1;
    }
    if (bad === undefined) return lines;
    // Whole lines after the bad one: the file is damaged, not torn.
    const rest = bytes.subarray(bad.at);
    const after = rest.indexOf(0x0a);
    if (after !== -1 && after < rest.length - 1) {
      this.#setAside(file, token, new Error(`line ${lines.length + 1} ${bad.why}, and more lines follow`));
      return [];
    }
    this.#log(
      `world of token ${redact(token)}: dropped a torn last record of ${rest.length} bytes (${bad.why}) in ${file}; the writes before it are kept`,
    );
    const fd = this.#io.openSync(file, 'r+');
    try {
      this.#io.ftruncateSync(fd, bad.at);
      this.#io.fsyncSync(fd);
    } finally {
      this.#io.closeSync(fd);
    }
    return lines;
  }

  #setAside(file: string, token: string, error: Error): void {
    const aside = `${file}.damaged-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    try {
      this.#io.renameSync(file, aside);
    } catch {
      // Gone already: nothing to set aside.
    }
    this.#log(
      `world of token ${redact(token)}: ${file} cannot be read (${error.message}); set aside as ${aside}, and the token starts from the seeded world`,
    );
  }

  /** Appends lines to a log, synced as `fsync` says; a write the disk refuses is undone and refused (507). */
  #append(file: string, lines: Line[]): void {
    const data = Buffer.from(lines.map(encode).join(''));
    let fd: number | undefined;
    let before = 0;
    try {
      fd = this.#io.openSync(file, 'a');
      before = this.#io.fstatSync(fd).size;
      this.#io.writeSync(fd, data);
      if (this.#fsync === 'always') {
        this.#io.fsyncSync(fd);
        // A new file's name is in its folder: synced too, or a crash of the machine may lose it.
        if (before === 0) this.#syncNow(this.#worlds);
      }
    } catch (error) {
      if (fd !== undefined)
        try {
          this.#io.ftruncateSync(fd, before);
        } catch {
          // What was written of it is a torn last line: the next load drops it.
        }
      throw errors.insufficientStorage((error as NodeJS.ErrnoException).code ?? (error as Error).message);
    } finally {
      if (fd !== undefined) this.#io.closeSync(fd);
    }
    if (this.#fsync === 'batch') {
      this.#later(file);
      if (before === 0) this.#later(this.#worlds);
    }
  }

  /**
   * Writes a log anew (a fixture put, a compaction): aside first, synced, then renamed over the old
   * one, and the rename synced in its folder, so that the writes appended to the new file after it
   * are never left behind an old name by a crash of the machine.
   */
  #rewrite(file: string, lines: Line[]): void {
    const aside = `${file}.${process.pid}.tmp`;
    try {
      this.#io.writeFileSync(aside, lines.map(encode).join(''));
      this.#syncNow(aside);
      this.#io.renameSync(aside, file);
      this.#syncNow(path.dirname(file));
    } catch (error) {
      try {
        this.#io.unlinkSync(aside);
      } catch {
        // Never written.
      }
      throw errors.insufficientStorage((error as NodeJS.ErrnoException).code ?? (error as Error).message);
    }
  }

  /** Syncs a file, or a folder's names, to the disk before it returns. */
  #syncNow(name: string): void {
    const fd = this.#io.openSync(name, 'r');
    try {
      this.#io.fsyncSync(fd);
    } finally {
      this.#io.closeSync(fd);
    }
  }

  #compactIfWrittenOver(world: World, kept: Kept): void {
    if (kept.lines <= COMPACT_AFTER_LINES || kept.records <= 2 * world.changedRecords) return;
    const change = world.allChanges();
    const lines: Line[] = [...(kept.state ? [{ state: kept.state }] : []), { change }];
    try {
      this.#rewrite(kept.file, lines);
      kept.lines = lines.length;
      kept.records = recordsOf(change);
    } catch {
      // The log as it was still holds every write: compacting can wait for the next load.
    }
  }

  #later(file: string): void {
    this.#unsynced.add(file);
    if (this.#timer) return;
    this.#timer = setTimeout(() => this.#syncWindow(), BATCH_WINDOW_MS);
    this.#timer.unref?.();
  }

  /**
   * Syncs the files the window wrote on libuv's thread pool, so that the event loop goes on
   * answering while the disk works (`batch` answered those writes once they were in the file).
   */
  #syncWindow(): void {
    this.#timer = undefined;
    const files = [...this.#unsynced];
    this.#unsynced.clear();
    for (const file of files)
      this.#io.open(file, 'r', (opened, fd) => {
        if (opened) return; // A file forgotten since (a reset) needs no sync.
        this.#io.fsync(fd, (error) => {
          if (error)
            this.#log(
              `${file}: the disk refused to sync it (${error.code ?? error.message}); its writes are in the file, but a crash of the machine may lose them`,
            );
          this.#io.close(fd, () => undefined);
        });
      });
  }
}

function encode(line: Line): string {
  const json = JSON.stringify(line);
  return `${crc32(json).toString(16).padStart(8, '0')} ${json}\n`;
}

/** A line of a log, or why it is not one (a torn or damaged line). */
function decode(bytes: Buffer, whole: boolean): Line | string {
  if (!whole) return 'cut short';
  const text = bytes.toString('utf8');
  const space = text.indexOf(' ');
  if (space !== 8) return 'without its checksum';
  const json = text.slice(9);
  if (crc32(json).toString(16).padStart(8, '0') !== text.slice(0, 8)) return 'whose checksum differs';
  try {
    const line = JSON.parse(json) as Line;
    return typeof line === 'object' && line !== null && ('state' in line || 'change' in line)
      ? line
      : 'of no record';
  } catch {
    return 'of no JSON';
  }
}
