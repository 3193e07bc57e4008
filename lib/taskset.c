/* lib/taskset: parser for task-set files (docs/formats.md, "Task files",
 * which tests/host/test_docs_formats.py holds to the tables below). */
#include "taskset.h"

#include <stdbool.h>

#include "fmt.h"
#include "parse_num.h"
#include "str.h"
#include "task_args.h"

struct token {
	const char *s;
	size_t n;
};

#define MAX_TOKENS 24

struct parser {
	struct taskset *ts;
	const char *file;
	unsigned line;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 2, 3)))
static int fail(struct parser *p, const char *format, ...)
{
	int n = fmt_snprintf(p->err, p->errlen, "%s:%u: ", p->file, p->line);
	if (n < 0)
		n = 0;
	if ((size_t)n < p->errlen) {
		va_list ap;
		va_start(ap, format);
		fmt_vsnprintf(p->err + n, p->errlen - (size_t)n, format, ap);
		va_end(ap);
	}
	return -1;
}

static uint32_t name_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u; /* FNV-1a offset basis */
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static int name_char_ok(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

int taskset_find(const struct taskset *ts, const char *name, size_t len)
{
	uint32_t h = name_hash(name, len);
	for (unsigned i = 0; i < ts->ntasks; i++) {
		const struct task_spec *t = &ts->task[i];
		if (t->name_hash != h)
			continue;
		size_t k = 0;
		while (k < len && t->name[k] == name[k])
			k++;
		if (k == len && t->name[k] == 0)
			return (int)i;
	}
	return -1;
}

/* A value of at most TASKSET_NAME_MAX chars, quoted in messages. */
static int check_name(struct parser *p, const struct token *name,
		      const char *what)
{
	if (name->n > TASKSET_NAME_MAX)
		return fail(p, "%s name '%.*s...' is longer than %d characters",
			    what, 8, name->s, TASKSET_NAME_MAX);
	for (size_t i = 0; i < name->n; i++)
		if (!name_char_ok(name->s[i]))
			return fail(p, "%s name '%.*s' has the character '%c'; "
				    "names use A-Z a-z 0-9 _ . -", what,
				    (int)name->n, name->s, name->s[i]);
	return 0;
}

#define NWORDS(a) (unsigned)(sizeof(a) / sizeof((a)[0]))

int taskset_work_name_ok(const char *s, size_t n)
{
	if (n == 0 || n > TASKSET_WORK_MAX ||
	    !((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z')))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!name_char_ok(s[i]) || s[i] == '.')
			return 0;
	return 1;
}

const char *taskset_args(const struct taskset *ts, const struct task_spec *t)
{
	return t->nargs && ts->argbuf ? ts->argbuf + t->args_at : 0;
}

static const char *const action_names[] = {
	"join", "leave", "block", "wake", "arrive",
};

const char *taskset_action_name(enum taskset_action a)
{
	return (unsigned)a < NWORDS(action_names) ? action_names[a] : "?";
}

/* Indexed by enum server_kind minus one. */
static const char *const kind_names[] = { "sporadic", "polling", "hybrid" };
static const char *const coalesce_names[] = { "immediate", "gradual" };

const char *taskset_server_kind_name(enum server_kind k)
{
	return k >= SERVER_SPORADIC && k <= SERVER_HYBRID ? kind_names[k - 1]
							  : "none";
}

const char *taskset_coalesce_name(enum server_coalesce c)
{
	return (unsigned)c < NWORDS(coalesce_names) ? coalesce_names[c] : "?";
}

static int parse_value(struct parser *p, const char *key, const char *s,
		       size_t n, uint32_t min, uint32_t *out)
{
	uint64_t v;
	enum parse_num_status st = parse_u64(s, n, TASKSET_VALUE_LIMIT - 1, &v);
	if (st != PARSE_NUM_OK) {
		if (st == PARSE_NUM_RANGE)
			return fail(p, "%s=%.*s is out of range (must be below 2^31)",
				    key, (int)n, s);
		return fail(p, "%s=%.*s: %s", key, (int)n, s, parse_num_reason(st));
	}
	if (v < min)
		return fail(p, "%s=%.*s must be at least %u", key, (int)n, s, min);
	*out = (uint32_t)v;
	return 0;
}

/* A key of a declaration: a number of at least min, one of words, or
 * (text) a value its declaration reads itself. */
struct key_def {
	const char *name;
	uint32_t min;
	const char *const *words;   /* NULL for a number */
	unsigned nwords;
	int text;
};

static int bad_word(struct parser *p, const struct key_def *k, const char *v,
		    size_t n)
{
	char list[160];
	size_t used = 0;
	list[0] = 0;
	for (unsigned w = 0; w < k->nwords && used < sizeof list; w++) {
		int m = fmt_snprintf(list + used, sizeof list - used, "%s%s",
				     w ? ", " : "", k->words[w]);
		used += m > 0 ? (size_t)m : 0;
	}
	return fail(p, "%s=%.*s: not one of %s", k->name, (int)n, v, list);
}

/*
 * The key=value words tok[first..ntok) of a declaration whose keys are
 * keys[]: val[k] gets the number, or the index of the word; a text key's
 * value goes to text[k]; seen[k] says whether key k was given.
 */
static int parse_keys(struct parser *p, const struct token *tok, int ntok,
		      int first, const struct key_def *keys, unsigned nkeys,
		      uint32_t *val, uint8_t *seen, struct token *text)
{
	for (int i = first; i < ntok; i++) {
		const struct token *t = &tok[i];
		size_t eq = 0;
		while (eq < t->n && t->s[eq] != '=')
			eq++;
		if (eq == t->n)
			return fail(p, "'%.*s' is not key=value", (int)t->n, t->s);
		unsigned k = 0;
		while (k < nkeys && !str_eq_n(t->s, eq, keys[k].name))
			k++;
		if (k == nkeys)
			return fail(p, "unknown key '%.*s'", (int)eq, t->s);
		if (seen[k])
			return fail(p, "key '%s' given twice", keys[k].name);
		seen[k] = 1;
		const char *v = t->s + eq + 1;
		size_t vn = t->n - eq - 1;
		if (vn == 0)
			return fail(p, "key '%s' has no value", keys[k].name);
		if (keys[k].text) {
			text[k] = (struct token){ v, vn };
			continue;
		}
		if (!keys[k].words) {
			if (parse_value(p, keys[k].name, v, vn, keys[k].min, &val[k]))
				return -1;
			continue;
		}
		unsigned w = 0;
		while (w < keys[k].nwords && !str_eq_n(v, vn, keys[k].words[w]))
			w++;
		if (w == keys[k].nwords)
			return bad_word(p, &keys[k], v, vn);
		val[k] = w;
	}
	return 0;
}

/* The declared name tok[1]: valid, with room for it (check_unique_names
 * finds a second use once the file is read). */
static int new_name(struct parser *p, const struct token *tok, int ntok,
		    const char *what)
{
	struct taskset *ts = p->ts;
	if (ntok < 2)
		return fail(p, "'%s' needs a name", what);
	if (check_name(p, &tok[1], "task"))
		return -1;
	if (ts->ntasks == ts->max_tasks)
		return fail(p, "more than %u tasks", ts->max_tasks);
	return 0;
}

/* Fills the next task[] entry's common fields from the name tok[1]. */
static struct task_spec *add_named(struct parser *p, const struct token *tok)
{
	struct taskset *ts = p->ts;
	struct task_spec *t = &ts->task[ts->ntasks++];
	*t = (struct task_spec){ 0 };
	for (size_t i = 0; i < tok[1].n; i++)
		t->name[i] = tok[1].s[i];
	t->name_hash = name_hash(tok[1].s, tok[1].n);
	t->line = p->line;
	for (size_t i = 0; i < sizeof TASKSET_WORK_DEFAULT; i++)
		t->work[i] = TASKSET_WORK_DEFAULT[i];
	return t;
}

enum key {
	KEY_E, KEY_P, KEY_D, KEY_PHASE, KEY_WEIGHT, KEY_WORK, KEY_WS, KEY_PRIO,
	KEY_CPU, KEY_ARGS, KEY_EXEC, KEY_CS, KEY_COUNT
};

static const struct key_def task_keys[KEY_COUNT] = {
	{ "e", 1, 0, 0, 0 }, { "p", 1, 0, 0, 0 }, { "d", 1, 0, 0, 0 },
	{ "phase", 0, 0, 0, 0 }, { "weight", 1, 0, 0, 0 },
	{ "work", 0, 0, 0, 1 }, { "ws", 1, 0, 0, 0 },
	{ "prio", 0, 0, 0, 0 }, { "cpu", 0, 0, 0, 0 }, { "args", 0, 0, 0, 1 },
	{ "exec", 0, 0, 0, 0 }, { "cs", 0, 0, 0, 1 },
};

static int parse_cs(struct parser *p, const struct token *name,
		    const struct token *cs, uint32_t e, struct task_spec *t);

/* work=NAME: a well-formed program name (taskset_work_name_ok). */
static int check_work(struct parser *p, const struct token *v)
{
	if (v->n > TASKSET_WORK_MAX)
		return fail(p, "work=%.*s...: a program name has at most %d "
			    "characters", 8, v->s, TASKSET_WORK_MAX);
	if (!taskset_work_name_ok(v->s, v->n))
		return fail(p, "work=%.*s: a program name is letters, digits, "
			    "'_' and '-', starting with a letter", (int)v->n,
			    v->s);
	return 0;
}

/* args="...": its words into the set's argbuf (when it keeps them). */
static int take_args(struct parser *p, const struct token *v,
		     struct task_spec *t)
{
	struct taskset *ts = p->ts;
	if (v->n < 2 || v->s[0] != '"' || v->s[v->n - 1] != '"')
		return fail(p, "args=%.*s: the value goes in double quotes, "
			    "args=\"...\"", (int)v->n, v->s);
	/* Never more than the value's own length: room for a local copy. */
	char words[TASKSET_LINE_MAX + 1];
	unsigned n;
	size_t len;
	const char *why;
	if (task_args_split(v->s + 1, v->n - 2, words, sizeof words, &n, &len,
			    &why))
		return fail(p, "args=%.*s: %s", (int)v->n, v->s, why);
	t->nargs = (uint8_t)n;
	t->args_len = (uint32_t)len;
	if (!ts->argbuf)
		return 0;
	if (len > ts->argbuf_max - ts->argbuf_len)
		return fail(p, "args=: the set's arguments take more than the "
			    "%zu bytes kept for them", ts->argbuf_max);
	t->args_at = (uint32_t)ts->argbuf_len;
	for (size_t i = 0; i < len; i++)
		ts->argbuf[ts->argbuf_len++] = words[i];
	return 0;
}

static int parse_task(struct parser *p, const struct token *tok, int ntok)
{
	if (new_name(p, tok, ntok, "task"))
		return -1;
	uint32_t val[KEY_COUNT] = { 0 };
	uint8_t seen[KEY_COUNT] = { 0 };
	struct token text[KEY_COUNT];
	if (parse_keys(p, tok, ntok, 2, task_keys, KEY_COUNT, val, seen, text))
		return -1;
	if (seen[KEY_WORK] && check_work(p, &text[KEY_WORK]))
		return -1;

	int periodic = seen[KEY_E] || seen[KEY_P] || seen[KEY_D];
	if (seen[KEY_WEIGHT] && periodic)
		return fail(p, "task '%.*s' has both weight= and e=/p=/d=; "
			    "give one or the other", (int)tok[1].n, tok[1].s);
	if (!seen[KEY_WEIGHT]) {
		if (!seen[KEY_E])
			return fail(p, "task '%.*s' has no e= (or weight=)",
				    (int)tok[1].n, tok[1].s);
		if (!seen[KEY_P])
			return fail(p, "task '%.*s' has no p=",
				    (int)tok[1].n, tok[1].s);
		if (!seen[KEY_D])
			val[KEY_D] = val[KEY_P];
		if (val[KEY_E] > val[KEY_P])
			return fail(p, "task '%.*s': e=%u is greater than p=%u",
				    (int)tok[1].n, tok[1].s, val[KEY_E], val[KEY_P]);
		if (val[KEY_E] > val[KEY_D])
			return fail(p, "task '%.*s': e=%u is greater than d=%u",
				    (int)tok[1].n, tok[1].s, val[KEY_E], val[KEY_D]);
		if (seen[KEY_EXEC] && val[KEY_EXEC] > val[KEY_E])
			return fail(p, "task '%.*s': exec=%u is greater than e=%u",
				    (int)tok[1].n, tok[1].s, val[KEY_EXEC],
				    val[KEY_E]);
	} else if (seen[KEY_EXEC]) {
		return fail(p, "task '%.*s': exec= is for tasks given e= and p= "
			    "(a weight= task has no jobs)", (int)tok[1].n,
			    tok[1].s);
	}

	struct task_spec *t = add_named(p, tok);
	t->e = val[KEY_E];
	t->p = val[KEY_P];
	t->d = val[KEY_D];
	t->phase = val[KEY_PHASE];
	t->weight = val[KEY_WEIGHT];
	if (seen[KEY_WORK]) {
		const struct token *w = &text[KEY_WORK];
		for (size_t i = 0; i < w->n; i++)
			t->work[i] = w->s[i];
		t->work[w->n] = 0;
	}
	t->ws = seen[KEY_WS] ? val[KEY_WS] : 4096;
	t->has_exec = seen[KEY_EXEC];
	t->exec = val[KEY_EXEC];
	if (seen[KEY_ARGS] && take_args(p, &text[KEY_ARGS], t)) {
		p->ts->ntasks--;
		return -1;
	}
	t->prio = val[KEY_PRIO];
	t->has_prio = seen[KEY_PRIO];
	t->cpu = val[KEY_CPU];
	if (seen[KEY_CS])
		return parse_cs(p, &tok[1], &text[KEY_CS], val[KEY_E], t);
	return 0;
}

enum server_key {
	SK_KIND, SK_BUDGET, SK_PERIOD, SK_PRIO, SK_MAX_REPL, SK_TOLL,
	SK_COALESCE, SK_CPU, SK_COUNT
};

static const struct key_def server_keys[SK_COUNT] = {
	{ "kind", 0, kind_names, NWORDS(kind_names), 0 },
	{ "budget", 1, 0, 0, 0 }, { "period", 1, 0, 0, 0 },
	{ "prio", 0, 0, 0, 0 },
	{ "max_repl", 1, 0, 0, 0 }, { "toll_us", 0, 0, 0, 0 },
	{ "coalesce", 0, coalesce_names, NWORDS(coalesce_names), 0 },
	{ "cpu", 0, 0, 0, 0 },
};

static int parse_server(struct parser *p, const struct token *tok, int ntok)
{
	if (new_name(p, tok, ntok, "server"))
		return -1;
	uint32_t val[SK_COUNT] = { 0 };
	uint8_t seen[SK_COUNT] = { 0 };
	if (parse_keys(p, tok, ntok, 2, server_keys, SK_COUNT, val, seen, 0))
		return -1;
	int n = (int)tok[1].n;
	const char *name = tok[1].s;
	static const enum server_key required[] = { SK_KIND, SK_BUDGET,
						    SK_PERIOD, SK_PRIO };
	for (unsigned i = 0; i < NWORDS(required); i++)
		if (!seen[required[i]])
			return fail(p, "server '%.*s' has no %s=", n, name,
				    server_keys[required[i]].name);
	enum server_kind kind = (enum server_kind)(val[SK_KIND] + 1);
	if (val[SK_BUDGET] > val[SK_PERIOD])
		return fail(p, "server '%.*s': budget=%u is greater than "
			    "period=%u", n, name, val[SK_BUDGET], val[SK_PERIOD]);
	if (seen[SK_MAX_REPL] && kind == SERVER_POLLING)
		return fail(p, "server '%.*s': max_repl= is for sporadic and "
			    "hybrid servers (a polling server posts no "
			    "replenishments)", n, name);
	if (val[SK_MAX_REPL] > TASKSET_MAX_REPL_LIMIT)
		return fail(p, "server '%.*s': max_repl=%u is above %u", n, name,
			    val[SK_MAX_REPL], TASKSET_MAX_REPL_LIMIT);
	if (seen[SK_COALESCE] && kind != SERVER_HYBRID)
		return fail(p, "server '%.*s': coalesce= is for kind=hybrid only",
			    n, name);

	struct task_spec *t = add_named(p, tok);
	t->prio = val[SK_PRIO];
	t->has_prio = 1;
	t->cpu = val[SK_CPU];
	struct server_spec *sv = &t->server;
	sv->kind = kind;
	sv->budget_us = val[SK_BUDGET];
	sv->period_us = val[SK_PERIOD];
	sv->max_repl = kind == SERVER_POLLING ? 0
		       : seen[SK_MAX_REPL] ? val[SK_MAX_REPL]
		       : TASKSET_MAX_REPL_DEFAULT;
	sv->toll_us = val[SK_TOLL];
	sv->coalesce = (enum server_coalesce)val[SK_COALESCE];
	return 0;
}

/* The server named tok, or -1 (where: " above" when it must be declared
 * before the current line). */
static int find_server(struct parser *p, const struct token *name,
		       const char *what, const char *where)
{
	int i = taskset_find(p->ts, name->s, name->n);
	if (i < 0)
		return fail(p, "%s names '%.*s', which is not declared%s", what,
			    (int)name->n, name->s, where);
	if (p->ts->task[i].server.kind == SERVER_NONE)
		return fail(p, "%s names '%.*s', which is a task, not a server",
			    what, (int)name->n, name->s);
	return i;
}

enum arrival_key { AK_RATE, AK_COST, AK_SEED, AK_COUNT };

static const struct key_def arrival_keys[AK_COUNT] = {
	{ "rate_hz", 1, 0, 0, 0 }, { "cost_us", 1, 0, 0, 0 },
	{ "seed", 0, 0, 0, 0 },
};

static int parse_arrivals(struct parser *p, const struct token *tok, int ntok)
{
	if (ntok < 2)
		return fail(p, "'arrivals' needs a server name");
	int i = find_server(p, &tok[1], "arrivals", " above");
	if (i < 0)
		return -1;
	struct server_spec *sv = &p->ts->task[i].server;
	if (sv->rate_hz)
		return fail(p, "server '%s' has a second 'arrivals' line (the "
			    "first is line %u)", p->ts->task[i].name,
			    sv->arrivals_line);
	uint32_t val[AK_COUNT] = { 0 };
	uint8_t seen[AK_COUNT] = { 0 };
	if (parse_keys(p, tok, ntok, 2, arrival_keys, AK_COUNT, val, seen, 0))
		return -1;
	for (unsigned k = 0; k < AK_SEED; k++)
		if (!seen[k])
			return fail(p, "'arrivals %s' has no %s=",
				    p->ts->task[i].name, arrival_keys[k].name);
	sv->rate_hz = val[AK_RATE];
	sv->cost_us = val[AK_COST];
	sv->seed = seen[AK_SEED] ? val[AK_SEED] : 1;
	sv->arrivals_line = p->line;
	return 0;
}

/* Indexed by enum taskset_protocol. */
static const char *const protocol_names[] = {
	"srp", "msrp", "pcp", "mpcp", "omlp",
};
_Static_assert(NWORDS(protocol_names) == PROTO_COUNT, "a name per protocol");

const char *taskset_protocol_name(enum taskset_protocol pr)
{
	return (unsigned)pr < NWORDS(protocol_names) ? protocol_names[pr] : "?";
}

int taskset_find_resource(const struct taskset *ts, const char *name,
			  size_t len)
{
	for (unsigned i = 0; i < ts->nres; i++)
		if (str_eq_n(name, len, ts->res[i].name))
			return (int)i;
	return -1;
}

enum resource_key { RK_PROTOCOL, RK_COUNT };

static const struct key_def resource_keys[RK_COUNT] = {
	{ "protocol", 0, protocol_names, NWORDS(protocol_names), 0 },
};

/* resource NAME protocol=P: one protocol for the whole set. */
static int parse_resource(struct parser *p, const struct token *tok, int ntok)
{
	struct taskset *ts = p->ts;
	if (ntok < 2)
		return fail(p, "'resource' needs a name");
	if (check_name(p, &tok[1], "resource"))
		return -1;
	int dup = taskset_find_resource(ts, tok[1].s, tok[1].n);
	if (dup >= 0)
		return fail(p, "resource '%.*s' is declared twice (first on "
			    "line %u)", (int)tok[1].n, tok[1].s,
			    ts->res[dup].line);
	if (ts->nres == ts->max_res)
		return fail(p, ts->max_res ? "more than %u resources"
				       : "this reader takes no resources (%u)",
			    ts->max_res);
	uint32_t val[RK_COUNT] = { 0 };
	uint8_t seen[RK_COUNT] = { 0 };
	if (parse_keys(p, tok, ntok, 2, resource_keys, RK_COUNT, val, seen, 0))
		return -1;
	if (!seen[RK_PROTOCOL])
		return fail(p, "resource '%.*s' has no protocol=", (int)tok[1].n,
			    tok[1].s);
	if (ts->nres && ts->res[0].protocol != (enum taskset_protocol)val[0])
		return fail(p, "resource '%.*s': protocol=%s, but '%s' (line %u) "
			    "has protocol=%s; a set uses one protocol",
			    (int)tok[1].n, tok[1].s, protocol_names[val[0]],
			    ts->res[0].name, ts->res[0].line,
			    protocol_names[ts->res[0].protocol]);
	struct resource_spec *r = &ts->res[ts->nres++];
	*r = (struct resource_spec){ 0 };
	for (size_t i = 0; i < tok[1].n; i++)
		r->name[i] = tok[1].s[i];
	r->protocol = (enum taskset_protocol)val[RK_PROTOCOL];
	r->line = p->line;
	return 0;
}

/* One number of a cs= item (the length at least 1, the start any). */
static int cs_number(struct parser *p, const struct token *name,
		     const struct token *item, const char *s, size_t n,
		     const char *what, uint32_t min, uint32_t *out)
{
	uint64_t v;
	enum parse_num_status st = parse_u64(s, n, TASKSET_VALUE_LIMIT - 1, &v);
	if (st != PARSE_NUM_OK)
		return fail(p, "task '%.*s': cs item '%.*s': the %s '%.*s' is "
			    "not a number (%s)", (int)name->n, name->s,
			    (int)item->n, item->s, what, (int)n, s,
			    parse_num_reason(st));
	if (v < min)
		return fail(p, "task '%.*s': cs item '%.*s': the %s must be at "
			    "least %u", (int)name->n, name->s, (int)item->n,
			    item->s, what, min);
	*out = (uint32_t)v;
	return 0;
}

/*
 * cs=NAME:LEN[@AT],... (lib/taskset.h): each section within the job's e
 * quanta, and any two either disjoint or one inside the other.
 */
static int parse_cs(struct parser *p, const struct token *name,
		    const struct token *cs, uint32_t e, struct task_spec *t)
{
	int tn = (int)name->n;
	if (!e)
		return fail(p, "task '%.*s': cs= needs e= and p= (a weight-only "
			    "task has no jobs to hold a resource)", tn, name->s);
	const char *s = cs->s, *end = cs->s + cs->n;
	uint32_t next_at = 1;
	while (s < end) {
		struct token item = { s, 0 };
		while (s + item.n < end && s[item.n] != ',')
			item.n++;
		if (item.n == 0)
			return fail(p, "task '%.*s': cs= has an empty item", tn,
				    name->s);
		size_t colon = 0, at = item.n;
		while (colon < item.n && s[colon] != ':')
			colon++;
		for (size_t i = colon; i < item.n; i++)
			if (s[i] == '@')
				at = i;
		if (colon == item.n || colon == 0 || at <= colon + 1)
			return fail(p, "task '%.*s': cs item '%.*s': a section "
				    "is RESOURCE:LEN or RESOURCE:LEN@AT", tn,
				    name->s, (int)item.n, item.s);
		int r = taskset_find_resource(p->ts, s, colon);
		if (r < 0)
			return fail(p, "task '%.*s': cs= names '%.*s', which is "
				    "not a resource declared above", tn, name->s,
				    (int)colon, s);
		if (t->ncs == TASKSET_CS_MAX)
			return fail(p, "task '%.*s': more than %d critical "
				    "sections", tn, name->s, TASKSET_CS_MAX);
		struct cs_spec *c = &t->cs[t->ncs];
		c->res = (uint32_t)r;
		c->at = next_at;
		if (cs_number(p, name, &item, s + colon + 1, at - colon - 1,
			      "length", 1, &c->len) ||
		    (at < item.n && cs_number(p, name, &item, s + at + 1,
					      item.n - at - 1, "start", 0,
					      &c->at)))
			return -1;
		if ((uint64_t)c->at + c->len > e)
			return fail(p, "task '%.*s': the section on %s from %u "
				    "for %u quanta ends after the job's e=%u",
				    tn, name->s, p->ts->res[r].name, c->at,
				    c->len, e);
		for (uint32_t k = 0; k < t->ncs; k++) {
			const struct cs_spec *o = &t->cs[k];
			uint32_t a0 = o->at, a1 = o->at + o->len;
			uint32_t b0 = c->at, b1 = c->at + c->len;
			int apart = a1 <= b0 || b1 <= a0;
			int nested = (a0 <= b0 && b1 <= a1) ||
				     (b0 <= a0 && a1 <= b1);
			if (!apart && !nested)
				return fail(p, "task '%.*s': the sections on %s "
					    "[%u, %u) and %s [%u, %u) overlap "
					    "without one inside the other", tn,
					    name->s, p->ts->res[o->res].name, a0,
					    a1, p->ts->res[r].name, b0, b1);
			if (!apart && o->res == c->res)
				return fail(p, "task '%.*s': %s is locked inside "
					    "its own section", tn, name->s,
					    p->ts->res[r].name);
		}
		next_at = c->at + c->len;
		t->ncs++;
		s += item.n + (s + item.n < end);
	}
	return 0;
}

enum { ARRIVE_COST, ARRIVE_COUNT };

static const struct key_def arrive_keys[ARRIVE_COUNT] = {
	{ "cost_us", 1, 0, 0, 0 },
};

/* The latest event of the same unit as action (arrive or not), or NULL. */
static const struct taskset_event *last_alike(const struct taskset *ts,
					      enum taskset_action action)
{
	for (unsigned i = ts->nevents; i-- > 0;)
		if ((ts->event[i].action == TASKSET_ARRIVE) ==
		    (action == TASKSET_ARRIVE))
			return &ts->event[i];
	return 0;
}

static int parse_event(struct parser *p, const struct token *tok, int ntok)
{
	struct taskset *ts = p->ts;
	int arrive = ntok >= 3 && str_eq_n(tok[2].s, tok[2].n, "arrive");
	if (arrive && ntok != 5)
		return fail(p, "an arrival is 'at TIME arrive SERVER cost_us=C'");
	if (!arrive && ntok != 4)
		return fail(p, "an event is 'at TIME join|leave|block|wake NAME' "
			    "or 'at TIME arrive SERVER cost_us=C'");
	uint32_t t;
	if (parse_value(p, "at", tok[1].s, tok[1].n, 0, &t))
		return -1;
	unsigned a = 0;
	while (a < 5 && !str_eq_n(tok[2].s, tok[2].n, action_names[a]))
		a++;
	if (a == 5)
		return fail(p, "unknown event '%.*s' (join, leave, block, wake, "
			    "arrive)", (int)tok[2].n, tok[2].s);
	uint32_t val[ARRIVE_COUNT] = { 0 };
	uint8_t seen[ARRIVE_COUNT] = { 0 };
	if (arrive) {
		if (parse_keys(p, tok, ntok, 4, arrive_keys, ARRIVE_COUNT, val,
			       seen, 0))
			return -1;
		if (!seen[ARRIVE_COST])
			return fail(p, "an arrival needs cost_us=");
	}
	if (ts->nevents == ts->max_events)
		return fail(p, "more than %u events", ts->max_events);
	const struct taskset_event *last = last_alike(ts, (enum taskset_action)a);
	if (last && last->t > t)
		return fail(p, "%s at %u%s comes after one at %u%s; list %s in "
			    "time order", arrive ? "arrival" : "event", t,
			    arrive ? " us" : "", last->t, arrive ? " us" : "",
			    arrive ? "arrivals" : "events");
	struct taskset_event *ev = &ts->event[ts->nevents++];
	ev->t = t;
	ev->action = (enum taskset_action)a;
	ev->line = p->line;
	ev->cost_us = val[ARRIVE_COST];
	/* The name is resolved once the whole file is read (check_events), so
	 * an event may name a task declared below it. */
	ev->task = 0;
	return 0;
}

/*
 * Words split at blanks; a '#' outside quotes starts a comment. A double
 * quote opens a quoted part of a word (args="..."), which runs to the next
 * double quote not escaped by a backslash and takes blanks and '#' as
 * they are; the word ends with it.
 */
static int tokenize(struct parser *p, const char *s, size_t n,
		    struct token *tok, int *ntok)
{
	*ntok = 0;
	size_t i = 0;
	for (;;) {
		while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
			i++;
		if (i == n || s[i] == '#')
			return 0;
		if (*ntok == MAX_TOKENS)
			return fail(p, "more than %d words", MAX_TOKENS);
		size_t start = i;
		while (i < n && s[i] != ' ' && s[i] != '\t' && s[i] != '\r' &&
		       s[i] != '#' && s[i] != '"')
			i++;
		if (i < n && s[i] == '"') {
			i++;
			while (i < n && s[i] != '"')
				i += s[i] == '\\' && i + 1 < n ? 2 : 1;
			if (i >= n)
				return fail(p, "'%.*s' has no closing double "
					    "quote", (int)(n - start), s + start);
			i++;
			if (i < n && s[i] != ' ' && s[i] != '\t' &&
			    s[i] != '\r' && s[i] != '#')
				return fail(p, "'%.*s': a quoted value ends its "
					    "word, but '%c' follows it",
					    (int)(i - start), s + start, s[i]);
		}
		tok[*ntok].s = s + start;
		tok[*ntok].n = i - start;
		(*ntok)++;
	}
}

/*
 * Word 3 of line `line` (an event's name): the line is read again, so no
 * storage is needed for names until the whole file is known.
 */
static struct token event_name(struct parser *p, const char *text, size_t len,
			       unsigned line)
{
	const char *s = text;
	for (unsigned l = 1; l < line; l++) {
		while (*s != '\n')
			s++;
		s++;
	}
	size_t n = 0;
	while (s + n < text + len && s[n] != '\n')
		n++;
	struct token tok[MAX_TOKENS];
	int ntok;
	p->line = line;
	tokenize(p, s, n, tok, &ntok);
	return tok[3];
}

/* By name (hash first), then line; or by line alone. */
static bool task_before(const struct task_spec *x, const struct task_spec *y,
			bool by_name)
{
	if (by_name && x->name_hash != y->name_hash)
		return x->name_hash < y->name_hash;
	for (size_t i = 0; by_name && i < TASKSET_NAME_MAX; i++)
		if (x->name[i] != y->name[i])
			return (unsigned char)x->name[i] < (unsigned char)y->name[i];
	return x->line < y->line;
}

static void sift_tasks(struct task_spec *v, size_t root, size_t n,
		       bool by_name)
{
	for (;;) {
		size_t child = 2 * root + 1;
		if (child >= n)
			return;
		if (child + 1 < n && task_before(&v[child], &v[child + 1], by_name))
			child++;
		if (!task_before(&v[root], &v[child], by_name))
			return;
		struct task_spec t = v[root];
		v[root] = v[child];
		v[child] = t;
		root = child;
	}
}

/* Heapsort in place: the parser has no memory of its own to sort into. */
static void sort_tasks(struct task_spec *v, size_t n, bool by_name)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_tasks(v, i, n, by_name);
	for (size_t end = n; end-- > 1;) {
		struct task_spec t = v[0];
		v[0] = v[end];
		v[end] = t;
		sift_tasks(v, 0, end, by_name);
	}
}

/*
 * Names are unique (docs/formats.md, "Task files"). Sorted by name, a name's uses
 * are neighbours: O(N log N), where a look-up at each task was O(N^2).
 * Fails on the earliest second use of a name (its line is before any other
 * error's: parsing stopped there). The tasks end in file order again.
 */
static int check_unique_names(struct parser *p)
{
	struct taskset *ts = p->ts;
	unsigned dup = 0, first = 0;
	char name[TASKSET_NAME_MAX + 1];

	sort_tasks(ts->task, ts->ntasks, true);
	for (unsigned i = 1; i < ts->ntasks; i++) {
		const struct task_spec *a = &ts->task[i - 1], *b = &ts->task[i];
		/* b is a name's second use when a is its first. */
		if (!str_eq(a->name, b->name) ||
		    (i > 1 && str_eq(ts->task[i - 2].name, b->name)) ||
		    (dup && dup < b->line))
			continue;
		dup = b->line;
		first = a->line;
		for (size_t c = 0; c <= TASKSET_NAME_MAX; c++)
			name[c] = b->name[c];
	}
	sort_tasks(ts->task, ts->ntasks, false);
	if (!dup)
		return 0;
	p->line = dup;
	return fail(p, "task name '%s' is used twice (first on line %u)", name,
		    first);
}

/* Each task's state through its events must follow the rules of the header. */
static int check_events(struct parser *p, const char *text, size_t len)
{
	struct taskset *ts = p->ts;
	for (unsigned i = 0; i < ts->nevents; i++) {
		struct taskset_event *ev = &ts->event[i];
		struct token name = event_name(p, text, len, ev->line);
		int idx;
		if (ev->action == TASKSET_ARRIVE) {
			if ((idx = find_server(p, &name, "arrive", "")) < 0)
				return -1;
		} else if ((idx = taskset_find(ts, name.s, name.n)) < 0) {
			return fail(p, "event names task '%.*s', which is not declared",
				    (int)name.n, name.s);
		} else if (ts->task[idx].server.kind != SERVER_NONE) {
			return fail(p, "'%s' is a server: servers take only "
				    "'arrive' events", ts->task[idx].name);
		}
		ev->task = (unsigned)idx;
	}
	for (unsigned k = 0; k < ts->ntasks; k++) {
		enum { PRESENT, GONE, BLOCKED } state = PRESENT;
		for (unsigned i = 0; i < ts->nevents; i++) {
			const struct taskset_event *ev = &ts->event[i];
			if (ev->task != k || ev->action == TASKSET_ARRIVE)
				continue;
			p->line = ev->line;
			static const char *const state_name[] = {
				"present", "gone (it left)", "blocked" };
			int ok = (ev->action == TASKSET_JOIN && state == GONE) ||
				 (ev->action == TASKSET_LEAVE && state != GONE) ||
				 (ev->action == TASKSET_BLOCK && state == PRESENT) ||
				 (ev->action == TASKSET_WAKE && state == BLOCKED);
			if (!ok)
				return fail(p, "task '%s' cannot %s at %u: it is %s",
					    ts->task[k].name,
					    action_names[ev->action], ev->t,
					    state_name[state]);
			if (ev->action == TASKSET_LEAVE)
				state = GONE;
			else if (ev->action == TASKSET_BLOCK)
				state = BLOCKED;
			else
				state = PRESENT;
		}
	}
	return 0;
}

int taskset_parse(struct taskset *ts, const char *file, const char *text,
		  size_t len, char *err, size_t errlen)
{
	struct parser p = { ts, file, 0, err, errlen };
	ts->ntasks = 0;
	ts->nevents = 0;
	ts->nres = 0;
	size_t pos = 0;
	int rc = 0;
	while (pos < len && rc == 0) {
		p.line++;
		size_t end = pos;
		while (end < len && text[end] != '\n')
			end++;
		size_t n = end - pos;
		if (n > 0 && text[pos + n - 1] == '\r')
			n--;
		struct token tok[MAX_TOKENS];
		int ntok = 0;
		if (n > TASKSET_LINE_MAX)
			rc = fail(&p, "line is %zu bytes long; at most %d", n,
				  TASKSET_LINE_MAX);
		else
			for (size_t i = 0; i < n && rc == 0; i++)
				if (text[pos + i] == 0)
					rc = fail(&p, "NUL byte in the file");
		if (rc == 0)
			rc = tokenize(&p, text + pos, n, tok, &ntok);
		if (rc == 0 && ntok > 0) {
			if (str_eq_n(tok[0].s, tok[0].n, "task"))
				rc = parse_task(&p, tok, ntok);
			else if (str_eq_n(tok[0].s, tok[0].n, "server"))
				rc = parse_server(&p, tok, ntok);
			else if (str_eq_n(tok[0].s, tok[0].n, "arrivals"))
				rc = parse_arrivals(&p, tok, ntok);
			else if (str_eq_n(tok[0].s, tok[0].n, "at"))
				rc = parse_event(&p, tok, ntok);
			else if (str_eq_n(tok[0].s, tok[0].n, "resource"))
				rc = parse_resource(&p, tok, ntok);
			else
				rc = fail(&p, "unknown declaration '%.*s' (expected "
					  "'task', 'server', 'arrivals', 'at' or "
					  "'resource')",
					  (int)tok[0].n, tok[0].s);
		}
		pos = end + 1;
	}
	if (check_unique_names(&p))
		rc = -1;
	if (rc == 0 && ts->ntasks == 0) {
		fmt_snprintf(err, errlen, "%s: no task declared", file);
		rc = -1;
	}
	if (rc == 0)
		rc = check_events(&p, text, len);
	if (rc != 0) {
		ts->ntasks = 0;
		ts->nevents = 0;
		ts->nres = 0;
	}
	return rc;
}

int taskset_first_server(const struct taskset *ts)
{
	for (unsigned i = 0; i < ts->ntasks; i++)
		if (ts->task[i].server.kind != SERVER_NONE)
			return (int)i;
	return -1;
}

void task_spec_weight(const struct task_spec *t, uint64_t *num, uint64_t *den)
{
	if (t->weight) {
		*num = t->weight;
		*den = 1;
	} else {
		*num = t->e;
		*den = t->p;
	}
}
