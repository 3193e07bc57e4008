/* lib/taskset: parser for FORMATS.md section 1 task-set files. */
#include "taskset.h"

#include "fmt.h"
#include "parse_num.h"
#include "str.h"

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
static int check_name(struct parser *p, const struct token *name)
{
	if (name->n > TASKSET_NAME_MAX)
		return fail(p, "task name '%.*s...' is longer than %d characters",
			    8, name->s, TASKSET_NAME_MAX);
	for (size_t i = 0; i < name->n; i++)
		if (!name_char_ok(name->s[i]))
			return fail(p, "task name '%.*s' has the character '%c'; "
				    "names use A-Z a-z 0-9 _ . -",
				    (int)name->n, name->s, name->s[i]);
	return 0;
}

enum key {
	KEY_E, KEY_P, KEY_D, KEY_PHASE, KEY_WEIGHT, KEY_WORK, KEY_WS, KEY_COUNT
};

static const char *const key_names[KEY_COUNT] = {
	"e", "p", "d", "phase", "weight", "work", "ws",
};

static const char *const work_names[TASK_WORK_COUNT] = {
	"spin", "writer", "backtest", "hourglass", "bad_kread",
	"bad_write_other", "bad_exec_data", "bad_div0", "bad_syscall_ptr",
	"bad_ud", "bad_gp",
};

const char *taskset_work_name(enum task_work w)
{
	return (unsigned)w < TASK_WORK_COUNT ? work_names[w] : "?";
}

static const char *const action_names[] = { "join", "leave", "block", "wake" };

const char *taskset_action_name(enum taskset_action a)
{
	return (unsigned)a < 4 ? action_names[a] : "?";
}

static int fail_work(struct parser *p, const char *v, size_t vn)
{
	char names[160];
	size_t n = 0;
	for (unsigned w = 0; w < TASK_WORK_COUNT && n < sizeof names; w++)
		n += (size_t)fmt_snprintf(names + n, sizeof names - n, "%s%s",
					  w ? ", " : "", work_names[w]);
	return fail(p, "work=%.*s: not one of %s", (int)vn, v, names);
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

static int parse_task(struct parser *p, const struct token *tok, int ntok)
{
	struct taskset *ts = p->ts;
	if (ntok < 2)
		return fail(p, "'task' needs a name");
	if (check_name(p, &tok[1]))
		return -1;
	if (taskset_find(ts, tok[1].s, tok[1].n) >= 0)
		return fail(p, "task name '%.*s' is used twice (first on line %u)",
			    (int)tok[1].n, tok[1].s,
			    ts->task[taskset_find(ts, tok[1].s, tok[1].n)].line);
	if (ts->ntasks == ts->max_tasks)
		return fail(p, "more than %u tasks", ts->max_tasks);

	uint32_t val[KEY_COUNT] = { 0 };
	int seen[KEY_COUNT] = { 0 };
	enum task_work work = TASK_WORK_SPIN;
	for (int i = 2; i < ntok; i++) {
		const struct token *t = &tok[i];
		size_t eq = 0;
		while (eq < t->n && t->s[eq] != '=')
			eq++;
		if (eq == t->n)
			return fail(p, "'%.*s' is not key=value", (int)t->n, t->s);
		int k = 0;
		for (; k < KEY_COUNT; k++) {
			struct token key = { t->s, eq };
			if (str_eq_n(key.s, key.n, key_names[k]))
				break;
		}
		if (k == KEY_COUNT)
			return fail(p, "unknown key '%.*s'", (int)eq, t->s);
		if (seen[k])
			return fail(p, "key '%s' given twice", key_names[k]);
		seen[k] = 1;
		const char *v = t->s + eq + 1;
		size_t vn = t->n - eq - 1;
		if (vn == 0)
			return fail(p, "key '%s' has no value", key_names[k]);
		if (k == KEY_WORK) {
			struct token vt = { v, vn };
			unsigned w = 0;
			while (w < TASK_WORK_COUNT &&
			       !str_eq_n(vt.s, vt.n, work_names[w]))
				w++;
			if (w == TASK_WORK_COUNT)
				return fail_work(p, v, vn);
			work = (enum task_work)w;
			continue;
		}
		uint32_t min = (k == KEY_PHASE) ? 0 : 1;
		if (parse_value(p, key_names[k], v, vn, min, &val[k]))
			return -1;
	}

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
	}

	struct task_spec *t = &ts->task[ts->ntasks];
	for (size_t i = 0; i <= TASKSET_NAME_MAX; i++)
		t->name[i] = i < tok[1].n ? tok[1].s[i] : 0;
	t->name_hash = name_hash(tok[1].s, tok[1].n);
	t->e = val[KEY_E];
	t->p = val[KEY_P];
	t->d = val[KEY_D];
	t->phase = val[KEY_PHASE];
	t->weight = val[KEY_WEIGHT];
	t->work = work;
	t->ws = seen[KEY_WS] ? val[KEY_WS] : 4096;
	t->line = p->line;
	ts->ntasks++;
	return 0;
}

static int parse_event(struct parser *p, const struct token *tok, int ntok)
{
	struct taskset *ts = p->ts;
	if (ntok != 4)
		return fail(p, "an event is 'at TIME join|leave|block|wake NAME'");
	uint32_t t;
	if (parse_value(p, "at", tok[1].s, tok[1].n, 0, &t))
		return -1;
	unsigned a = 0;
	while (a < 4 && !str_eq_n(tok[2].s, tok[2].n, action_names[a]))
		a++;
	if (a == 4)
		return fail(p, "unknown event '%.*s' (join, leave, block, wake)",
			    (int)tok[2].n, tok[2].s);
	if (ts->nevents == ts->max_events)
		return fail(p, "more than %u events", ts->max_events);
	if (ts->nevents > 0 && ts->event[ts->nevents - 1].t > t)
		return fail(p, "event at %u comes after one at %u; list events "
			    "in time order", t, ts->event[ts->nevents - 1].t);
	struct taskset_event *ev = &ts->event[ts->nevents++];
	ev->t = t;
	ev->action = (enum taskset_action)a;
	ev->line = p->line;
	/* The name is resolved once the whole file is read (check_events), so
	 * an event may name a task declared below it. */
	ev->task = 0;
	return 0;
}

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
		       s[i] != '#')
			i++;
		tok[*ntok].s = s + start;
		tok[*ntok].n = i - start;
		(*ntok)++;
	}
}

/* Each task's state through its events must follow the rules of the header. */
static int check_events(struct parser *p, const char *text, size_t len)
{
	struct taskset *ts = p->ts;
	for (unsigned i = 0; i < ts->nevents; i++) {
		struct taskset_event *ev = &ts->event[i];
		/* Re-read the event's line for the name: no extra storage needed. */
		const char *s = text;
		unsigned line = 1;
		while (line < ev->line) {
			while (*s != '\n')
				s++;
			s++;
			line++;
		}
		size_t n = 0;
		while (s + n < text + len && s[n] != '\n')
			n++;
		struct token tok[MAX_TOKENS];
		int ntok;
		p->line = ev->line;
		tokenize(p, s, n, tok, &ntok);
		int idx = taskset_find(ts, tok[3].s, tok[3].n);
		if (idx < 0)
			return fail(p, "event names task '%.*s', which is not declared",
				    (int)tok[3].n, tok[3].s);
		ev->task = (unsigned)idx;
	}
	for (unsigned k = 0; k < ts->ntasks; k++) {
		enum { PRESENT, GONE, BLOCKED } state = PRESENT;
		for (unsigned i = 0; i < ts->nevents; i++) {
			const struct taskset_event *ev = &ts->event[i];
			if (ev->task != k)
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
			else if (str_eq_n(tok[0].s, tok[0].n, "at"))
				rc = parse_event(&p, tok, ntok);
			else
				rc = fail(&p, "unknown declaration '%.*s' (expected "
					  "'task' or 'at')", (int)tok[0].n, tok[0].s);
		}
		pos = end + 1;
	}
	if (rc == 0 && ts->ntasks == 0) {
		fmt_snprintf(err, errlen, "%s: no task declared", file);
		rc = -1;
	}
	if (rc == 0)
		rc = check_events(&p, text, len);
	if (rc != 0) {
		ts->ntasks = 0;
		ts->nevents = 0;
	}
	return rc;
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
