import { closedNames, errorKeyOf } from '../../src/twin/profile';
/**
 * The fields of a server profile that a twin mirrors (docs/twin.md), for comparing the profile a
 * server showed with the one its twin shows. `seen` (which exchange showed it) is left out: only the
 * choices are compared. A choice the twin cannot mirror (ids that are JSON numbers or of other
 * characters, an avatar_url of null or none) is left out too, and so is one the run could not see.
 */
type Json = Record<string, any>;

const value = (observed: Json | undefined) => (observed && 'value' in observed ? observed.value : undefined);

/** An error body's shape as a twin mirrors it: of the keys beside a nested message, those it fills. */
function errorBody(body: Json | undefined): Json | undefined {
  if (!body?.placeKeys) return body;
  const own = [body.messageAt, body.codeAt].map((at: string | undefined) => at?.split('.').at(-1));
  const placeKeys = body.placeKeys.filter((key: string) => own.includes(key) || errorKeyOf(key));
  return { ...body, placeKeys };
}

/** Reaction names as a twin mirrors them: the closed list of those taken, or open (the mock's rule). */
const names = (value: Json | undefined) =>
  value === undefined ? undefined : closedNames(value.taken, value.refused) ? value.taken : 'open';

/**
 * The server's own fields as a twin mirrors them, by where and path: how each is filled. An
 * example (a value nothing explained) is the twin's to fill as it can, and left out on both sides.
 */
function ownBeside(server: Json | undefined, twin: Json | undefined): [Json | undefined, Json | undefined] {
  if (!server || !twin) return [server, twin];
  const [a, b]: Json[] = [{}, {}];
  for (const where of Object.keys(server)) {
    const kept = (server[where] as Json[]).filter((f) => f.as !== 'example');
    const paths = new Set(kept.map((f) => f.path));
    a[where] = kept;
    b[where] = ((twin[where] ?? []) as Json[]).filter(
      (f) => paths.has(f.path) || !(server[where] as Json[]).some((g) => g.path === f.path),
    );
  }
  return [a, b];
}

/**
 * Input rules as a twin mirrors them: each field's limit and the forms refused, and their status.
 * The longest value a run took and what it could not state are the run's: left out. A limit the
 * kit found is compared as it found it; a field without one, by its forms.
 */
function statedRules(rules: Json | undefined): Json | undefined {
  if (!rules) return undefined;
  const fields = Object.entries(rules.fields as Record<string, Json>)
    .filter(([, rule]) => rule.maxLength !== undefined || rule.refused.length > 0)
    .map(([field, rule]) => [field, { maxLength: rule.maxLength, refused: rule.refused }]);
  return { ...Object.fromEntries(fields), refusedWith: fields.length > 0 ? rules.status : undefined };
}

function mirrored(profile: Json): Json {
  const out: Json = {
    pathPrefix: profile.server.pathPrefix,
    contentType: value(profile.contentType),
    successStatus: Object.fromEntries(
      Object.entries(profile.successStatus).map(([k, v]) => [k, value(v as Json)]),
    ),
    deleteAnswer: {
      contacts: value(profile.deleteAnswer.contacts),
      messages: value(profile.deleteAnswer.messages),
    },
    ids: {} as Json,
    timestampUnit: value(profile.timestampUnit),
    order: { contacts: value(profile.order.contacts), messages: value(profile.order.messages) },
    paging: value(profile.paging),
    limit: value(profile.limit),
    errors: {
      body: errorBody(value(profile.errors.body)),
      status: Object.fromEntries(
        Object.entries(profile.errors.status).map(([k, v]) => [k, value(v as Json)]),
      ),
    },
    reactions: value(profile.reactions),
    attachments: value(profile.attachments),
    touchOnSend: value(profile.touchOnSend),
    jsonBodies: value(profile.jsonBodies),
    reactionNames: names(value(profile.reactionNames)),
    ownFields: value(profile.ownFields),
    inputRules: statedRules(value(profile.inputRules)),
  };
  for (const kind of ['contact', 'message', 'conversation']) {
    const id = value(profile.ids[kind]);
    if (id && id.kind !== 'other' && id.json !== 'number') out.ids[kind] = id;
  }
  const avatar = value(profile.avatarDefault);
  if (avatar && avatar.kind !== 'null' && avatar.kind !== 'absent') out.avatarDefault = avatar;
  return out;
}

/**
 * The twin's mirrored choices beside the server's: where the server's run could not see a choice
 * (or the twin cannot mirror it), the twin keeps the mock's own, which is left out.
 */
export function beside(server: Json, twin: Json): { server: Json; twin: Json } {
  const a = mirrored(server);
  const b = mirrored(twin);
  for (const kind of Object.keys(a.ids)) lengthsBeside(a.ids[kind], b.ids[kind]);
  // Ties show only where a page happened to hold two records of one created_at: compared where both runs saw them.
  for (const list of ['contacts', 'messages'])
    if (a.order[list]?.ties === undefined || b.order[list]?.ties === undefined) {
      if (a.order[list]) a.order[list] = { ...a.order[list], ties: undefined };
      if (b.order[list]) b.order[list] = { ...b.order[list], ties: undefined };
    }
  [a.ownFields, b.ownFields] = ownBeside(a.ownFields, b.ownFields);
  const prune = (x: Json, y: Json) => {
    for (const key of Object.keys(y)) {
      if (x[key] === undefined) delete y[key];
      else if (
        isPlain(x[key]) &&
        isPlain(y[key]) &&
        !('kind' in x[key] || 'status' in x[key] || 'field' in x[key])
      )
        prune(x[key], y[key]);
    }
  };
  prune(a, b);
  return { server: a, twin: b };
}

/**
 * An id format's lengths as a twin mirrors them (src/twin/profile.ts): as a range drawn from at
 * random, so that the lengths its run saw need only lie within the server's.
 */
function lengthsBeside(server: Json, twin: Json | undefined): void {
  if (!twin || server.kind === 'uuid' || twin.kind !== server.kind) return;
  const range = (id: Json): [number, number] => [id.length ?? id.minLength, id.length ?? id.maxLength];
  const [min, max] = range(server);
  const drop = (id: Json) => {
    delete id.length;
    delete id.minLength;
    delete id.maxLength;
  };
  const [low, high] = range(twin);
  if (low >= min && high <= max) {
    drop(twin);
    Object.assign(twin, server.length === undefined ? { minLength: min, maxLength: max } : { length: min });
  }
}

const isPlain = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
