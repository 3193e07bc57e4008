/* lib/gdb_rsp: the GDB remote serial protocol over a table of operations. */
#include "gdb_rsp.h"

#include "fmt.h"

/* Framing states: between packets, in a body, at the two checksum digits. */
enum { IDLE, BODY, SUM_HI, SUM_LO };

/* Run-length encoding (GDB manual, E.1 "Overview"): "c*n" repeats c n - 29
 * more times; a count that would read as '#' or '$' is not allowed, and
 * runs are only worth it from four characters. */
#define RLE_BASE 29
#define RLE_MAX_EXTRA (126 - RLE_BASE)
#define RLE_MIN 4

static const char hexdig[] = "0123456789abcdef";

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A hex number of 1-16 digits at *p; advances *p past it. */
static bool parse_hex(const char **p, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	unsigned n = 0;
	while (*p < end && hexval(**p) >= 0) {
		if (++n > 16)
			return false;
		v = v << 4 | (uint64_t)hexval(**p);
		(*p)++;
	}
	*out = v;
	return n > 0;
}

static bool expect(const char **p, const char *end, char c)
{
	if (*p >= end || **p != c)
		return false;
	(*p)++;
	return true;
}

/* A thread id: hex, "0" (any) or "-1" (all, returned as 0 with *all). */
static bool parse_thread(const char **p, const char *end, unsigned *id,
			 bool *all)
{
	*all = false;
	if (*p + 1 < end && (*p)[0] == '-' && (*p)[1] == '1') {
		*p += 2;
		*all = true;
		*id = 0;
		return true;
	}
	uint64_t v;
	if (!parse_hex(p, end, &v) || v > GDB_RSP_MAX_THREADS)
		return false;
	*id = (unsigned)v;
	return true;
}

/* ------------------------------------------------------------ sending */

struct sender {
	struct gdb_rsp *r;
	char buf[64];
	size_t n;
	uint8_t sum;
};

static void flush(struct sender *s)
{
	if (s->n)
		s->r->t->put(s->r->t->ctx, s->buf, s->n);
	s->n = 0;
}

static void emit(struct sender *s, char c, bool counted)
{
	if (s->n == sizeof s->buf)
		flush(s);
	s->buf[s->n++] = c;
	if (counted)
		s->sum = (uint8_t)(s->sum + (uint8_t)c);
}

static bool needs_escape(char c)
{
	return c == '#' || c == '$' || c == '}' || c == '*';
}

/* Frames the kept reply: binary replies escaped, text ones run-length
 * encoded. */
static void send_reply(struct gdb_rsp *r)
{
	struct sender s = { .r = r };
	emit(&s, '$', false);
	for (size_t i = 0; i < r->out_len;) {
		char c = r->out[i];
		if (r->out_binary) {
			if (needs_escape(c)) {
				emit(&s, '}', true);
				c ^= 0x20;
			}
			emit(&s, c, true);
			i++;
			continue;
		}
		size_t run = 1;
		while (i + run < r->out_len && r->out[i + run] == c &&
		       run - 1 < RLE_MAX_EXTRA)
			run++;
		size_t extra = run - 1;
		/* '#' and '$' may not stand as counts. */
		while (RLE_BASE + extra == '#' || RLE_BASE + extra == '$')
			extra--;
		emit(&s, c, true);
		if (extra + 1 >= RLE_MIN) {
			emit(&s, '*', true);
			emit(&s, (char)(RLE_BASE + extra), true);
			i += extra + 1;
		} else {
			i++;
		}
	}
	emit(&s, '#', false);
	emit(&s, hexdig[s.sum >> 4], false);
	emit(&s, hexdig[s.sum & 15], false);
	flush(&s);
	r->replied = true;
}

static void put_raw(struct gdb_rsp *r, char c)
{
	r->t->put(r->t->ctx, &c, 1);
}

/* The reply under construction lives in r->out until send_reply. */
static void out_reset(struct gdb_rsp *r)
{
	r->out_len = 0;
	r->out_binary = false;
}

static void out_char(struct gdb_rsp *r, char c)
{
	if (r->out_len < sizeof r->out)
		r->out[r->out_len++] = c;
}

static void out_str(struct gdb_rsp *r, const char *s)
{
	while (*s)
		out_char(r, *s++);
}

static void out_hex_byte(struct gdb_rsp *r, uint8_t b)
{
	out_char(r, hexdig[b >> 4]);
	out_char(r, hexdig[b & 15]);
}

static void out_hex_num(struct gdb_rsp *r, uint64_t v)
{
	char tmp[16];
	int n = 0;
	do {
		tmp[n++] = hexdig[v & 15];
		v >>= 4;
	} while (v);
	while (n)
		out_char(r, tmp[--n]);
}

static void reply(struct gdb_rsp *r, const char *s)
{
	out_reset(r);
	out_str(r, s);
	send_reply(r);
}

/* Error numbers are errno values, as gdbserver sends them; GDB shows
 * only that the request failed. */
#define E_SYNTAX "E01"
#define E_FAULT "E0e"
#define E_INVAL "E16"

/* ------------------------------------------------------------ threads */

static bool alive(struct gdb_rsp *r, unsigned id)
{
	return id >= 1 && id <= r->t->nthreads && id <= GDB_RSP_MAX_THREADS &&
	       r->t->alive(r->t->ctx, id);
}

/* The thread an H setting names: the stopped thread for "any". */
static unsigned chosen(struct gdb_rsp *r, unsigned h)
{
	return h ? h : r->last.thread;
}

/* ---------------------------------------------------------- registers */

unsigned gdb_rsp_nregs(const struct gdb_rsp_arch *a)
{
	unsigned n = 0;
	for (unsigned f = 0; f < a->nfeatures; f++)
		n += a->features[f].nregs;
	return n;
}

const struct gdb_rsp_reg *gdb_rsp_reg(const struct gdb_rsp_arch *a,
				      unsigned regno)
{
	for (unsigned f = 0; f < a->nfeatures; f++) {
		if (regno < a->features[f].nregs)
			return &a->features[f].regs[regno];
		regno -= a->features[f].nregs;
	}
	return 0;
}

#define REG_BYTES_MAX 16

/* Appends register regno as hex, or as 'x's when unavailable. */
static bool out_reg(struct gdb_rsp *r, unsigned thread, unsigned regno)
{
	const struct gdb_rsp_reg *d = gdb_rsp_reg(r->t->arch, regno);
	uint8_t v[REG_BYTES_MAX];
	unsigned bytes = d->bits / 8;
	int rc = r->t->read_reg(r->t->ctx, thread, regno, v);
	if (rc == GDB_RSP_ERROR)
		return false;
	for (unsigned i = 0; i < bytes; i++) {
		if (rc == GDB_RSP_UNAVAILABLE) {
			out_str(r, "xx");
			continue;
		}
		out_hex_byte(r, v[i]);
	}
	return true;
}

/* Decodes 2*bytes hex digits at *p into v. */
static bool parse_bytes(const char **p, const char *end, uint8_t *v,
			size_t bytes)
{
	if ((size_t)(end - *p) < 2 * bytes)
		return false;
	for (size_t i = 0; i < bytes; i++) {
		int hi = hexval((*p)[0]), lo = hexval((*p)[1]);
		if (hi < 0 || lo < 0)
			return false;
		v[i] = (uint8_t)(hi << 4 | lo);
		*p += 2;
	}
	return true;
}

static void cmd_read_regs(struct gdb_rsp *r)
{
	unsigned th = chosen(r, r->g_thread);
	if (!alive(r, th)) {
		reply(r, E_INVAL);
		return;
	}
	out_reset(r);
	unsigned n = gdb_rsp_nregs(r->t->arch);
	for (unsigned i = 0; i < n; i++) {
		if (!out_reg(r, th, i)) {
			reply(r, E_FAULT);
			return;
		}
	}
	send_reply(r);
}

/* G: every register in order; a register sent as 'x's is left alone. */
static void cmd_write_regs(struct gdb_rsp *r, const char *p, const char *end)
{
	unsigned th = chosen(r, r->g_thread);
	if (!alive(r, th)) {
		reply(r, E_INVAL);
		return;
	}
	unsigned n = gdb_rsp_nregs(r->t->arch);
	bool ok = true;
	for (unsigned i = 0; i < n && p < end; i++) {
		unsigned bytes = gdb_rsp_reg(r->t->arch, i)->bits / 8;
		uint8_t v[REG_BYTES_MAX];
		if (*p == 'x') {
			if ((size_t)(end - p) < 2 * bytes) {
				reply(r, E_SYNTAX);
				return;
			}
			p += 2 * bytes;
			continue;
		}
		if (!parse_bytes(&p, end, v, bytes)) {
			reply(r, E_SYNTAX);
			return;
		}
		if (r->t->write_reg(r->t->ctx, th, i, v) != GDB_RSP_OK)
			ok = false;
	}
	reply(r, p == end ? (ok ? "OK" : E_INVAL) : E_SYNTAX);
}

static void cmd_read_reg(struct gdb_rsp *r, const char *p, const char *end)
{
	uint64_t regno;
	unsigned th = chosen(r, r->g_thread);
	if (!parse_hex(&p, end, &regno) || p != end) {
		reply(r, E_SYNTAX);
		return;
	}
	if (regno >= gdb_rsp_nregs(r->t->arch) || !alive(r, th)) {
		reply(r, E_INVAL);
		return;
	}
	out_reset(r);
	if (!out_reg(r, th, (unsigned)regno)) {
		reply(r, E_FAULT);
		return;
	}
	send_reply(r);
}

static void cmd_write_reg(struct gdb_rsp *r, const char *p, const char *end)
{
	uint64_t regno;
	unsigned th = chosen(r, r->g_thread);
	if (!parse_hex(&p, end, &regno) || !expect(&p, end, '=')) {
		reply(r, E_SYNTAX);
		return;
	}
	if (regno >= gdb_rsp_nregs(r->t->arch) || !alive(r, th)) {
		reply(r, E_INVAL);
		return;
	}
	unsigned bytes = gdb_rsp_reg(r->t->arch, (unsigned)regno)->bits / 8;
	uint8_t v[REG_BYTES_MAX];
	if (!parse_bytes(&p, end, v, bytes) || p != end) {
		reply(r, E_SYNTAX);
		return;
	}
	int rc = r->t->write_reg(r->t->ctx, th, (unsigned)regno, v);
	reply(r, rc == GDB_RSP_OK ? "OK" : E_INVAL);
}

/* ------------------------------------------------------------- memory */

/* "ADDR,LEN" then the separator sep (0: the end). */
static bool parse_range(const char **p, const char *end, uint64_t *addr,
			uint64_t *len, char sep)
{
	if (!parse_hex(p, end, addr) || !expect(p, end, ',') ||
	    !parse_hex(p, end, len))
		return false;
	return sep ? expect(p, end, sep) : *p == end;
}

static void cmd_read_mem(struct gdb_rsp *r, const char *p, const char *end)
{
	uint64_t addr, len;
	if (!parse_range(&p, end, &addr, &len, 0)) {
		reply(r, E_SYNTAX);
		return;
	}
	/* A shorter answer is allowed: GDB asks again for the rest. */
	if (len > sizeof r->mem)
		len = sizeof r->mem;
	size_t got = len ? r->t->read_mem(r->t->ctx, addr, r->mem, len) : 0;
	if (len && !got) {
		reply(r, E_FAULT);
		return;
	}
	out_reset(r);
	for (size_t i = 0; i < got; i++)
		out_hex_byte(r, r->mem[i]);
	send_reply(r);
}

static void write_mem(struct gdb_rsp *r, uint64_t addr, size_t len)
{
	if (len && r->t->write_mem(r->t->ctx, addr, r->mem, len) != GDB_RSP_OK)
		reply(r, E_FAULT);
	else
		reply(r, "OK");
}

static void cmd_write_mem_hex(struct gdb_rsp *r, const char *p,
			      const char *end)
{
	uint64_t addr, len;
	if (!parse_range(&p, end, &addr, &len, ':') || len > sizeof r->mem ||
	    !parse_bytes(&p, end, r->mem, len) || p != end) {
		reply(r, E_SYNTAX);
		return;
	}
	write_mem(r, addr, len);
}

/* X: binary data, '}' escaping the next byte (XOR 0x20). */
static void cmd_write_mem_bin(struct gdb_rsp *r, const char *p,
			      const char *end)
{
	uint64_t addr, len;
	if (!parse_range(&p, end, &addr, &len, ':') || len > sizeof r->mem) {
		reply(r, E_SYNTAX);
		return;
	}
	size_t n = 0;
	while (p < end && n < len) {
		char c = *p++;
		if (c == '}') {
			if (p == end)
				break;
			c = (char)(*p++ ^ 0x20);
		}
		r->mem[n++] = (uint8_t)c;
	}
	if (n != len || p != end) {
		reply(r, E_SYNTAX);
		return;
	}
	write_mem(r, addr, len);
}

/* -------------------------------------------------------- breakpoints */

static void cmd_point(struct gdb_rsp *r, bool insert, const char *p,
		      const char *end)
{
	uint64_t type, addr, kind;
	if (!parse_hex(&p, end, &type) || !expect(&p, end, ',') ||
	    !parse_hex(&p, end, &addr) || !expect(&p, end, ',') ||
	    !parse_hex(&p, end, &kind) || p != end) {
		reply(r, E_SYNTAX);
		return;
	}
	if (type > GDB_RSP_WATCH_ACCESS) {
		reply(r, "");
		return;
	}
	int rc = (insert ? r->t->insert : r->t->remove)(
		r->t->ctx, (enum gdb_rsp_point)type, addr, kind);
	reply(r, rc == GDB_RSP_OK ? "OK" :
		 rc == GDB_RSP_UNSUPPORTED ? "" : E_INVAL);
}

/* ------------------------------------------------------------- resume */

static void run_all(struct gdb_rsp *r, enum gdb_rsp_run what)
{
	for (unsigned i = 0; i <= GDB_RSP_MAX_THREADS; i++)
		r->run[i] = (uint8_t)(alive(r, i) ? what : GDB_RSP_STAY);
}

/* c [ADDR], s [ADDR], C SIG[;ADDR], S SIG[;ADDR]: a kernel has no signals
 * to deliver, so SIG is read and dropped. s steps the Hc thread (the
 * stopped one for "any"); the others stay, as QEMU's stub does. */
static enum gdb_rsp_event cmd_resume(struct gdb_rsp *r, bool step,
				     bool with_signal, const char *p,
				     const char *end)
{
	uint64_t sig, addr;
	unsigned th = chosen(r, r->c_thread);
	if (with_signal && (!parse_hex(&p, end, &sig) ||
			    (p < end && !expect(&p, end, ';')))) {
		reply(r, E_SYNTAX);
		return GDB_RSP_NONE;
	}
	bool at = p < end;
	if (at && (!parse_hex(&p, end, &addr) || p != end)) {
		reply(r, E_SYNTAX);
		return GDB_RSP_NONE;
	}
	if (!alive(r, th)) {
		reply(r, E_INVAL);
		return GDB_RSP_NONE;
	}
	if (at) {
		uint8_t v[REG_BYTES_MAX] = { 0 };
		unsigned pc = r->t->arch->pc_regno;
		unsigned bytes = gdb_rsp_reg(r->t->arch, pc)->bits / 8;
		for (unsigned i = 0; i < bytes && i < 8; i++)
			v[i] = (uint8_t)(addr >> (8 * i));
		if (r->t->write_reg(r->t->ctx, th, pc, v) != GDB_RSP_OK) {
			reply(r, E_INVAL);
			return GDB_RSP_NONE;
		}
	}
	if (step) {
		run_all(r, GDB_RSP_STAY);
		r->run[th] = GDB_RSP_STEP;
	} else {
		run_all(r, GDB_RSP_CONTINUE);
	}
	return GDB_RSP_RESUME;
}

/* vCont;ACTION[:THREAD]...: the first action naming a thread applies to
 * it; one without a thread applies to every thread not yet named. */
static enum gdb_rsp_event cmd_vcont(struct gdb_rsp *r, const char *p,
				    const char *end)
{
	bool set[GDB_RSP_MAX_THREADS + 1] = { false };
	run_all(r, GDB_RSP_STAY);
	bool any = false;
	while (p < end) {
		uint64_t sig;
		if (!expect(&p, end, ';') || p == end)
			goto bad;
		char a = *p++;
		enum gdb_rsp_run what;
		if (a == 'c' || a == 'C')
			what = GDB_RSP_CONTINUE;
		else if (a == 's' || a == 'S')
			what = GDB_RSP_STEP;
		else
			goto bad;
		if ((a == 'C' || a == 'S') && !parse_hex(&p, end, &sig))
			goto bad;
		unsigned th = 0;
		bool all = true;
		if (p < end && *p == ':') {
			p++;
			if (!parse_thread(&p, end, &th, &all))
				goto bad;
			all = all || th == 0;
		}
		for (unsigned i = 1; i <= GDB_RSP_MAX_THREADS; i++) {
			if (set[i] || !alive(r, i) || (!all && i != th))
				continue;
			set[i] = true;
			r->run[i] = (uint8_t)what;
			any = true;
		}
	}
	if (!any) {
		reply(r, E_INVAL);
		return GDB_RSP_NONE;
	}
	return GDB_RSP_RESUME;
bad:
	reply(r, E_SYNTAX);
	return GDB_RSP_NONE;
}

/* --------------------------------------------------------------- stop */

static void send_stop(struct gdb_rsp *r)
{
	const struct gdb_rsp_stop *s = &r->last;
	out_reset(r);
	out_char(r, 'T');
	out_hex_byte(r, (uint8_t)s->signal);
	switch (s->why) {
	case GDB_RSP_STOP_SWBREAK:
		out_str(r, "swbreak:;");
		break;
	case GDB_RSP_STOP_HWBREAK:
		out_str(r, "hwbreak:;");
		break;
	case GDB_RSP_STOP_WATCH:
	case GDB_RSP_STOP_RWATCH:
	case GDB_RSP_STOP_AWATCH:
		out_str(r, s->why == GDB_RSP_STOP_WATCH ? "watch:" :
			   s->why == GDB_RSP_STOP_RWATCH ? "rwatch:" : "awatch:");
		out_hex_num(r, s->addr);
		out_char(r, ';');
		break;
	case GDB_RSP_STOP_SIGNAL:
		break;
	}
	out_str(r, "thread:");
	out_hex_num(r, s->thread);
	out_char(r, ';');
	send_reply(r);
}

void gdb_rsp_stopped(struct gdb_rsp *r, const struct gdb_rsp_stop *s,
		     bool tell)
{
	r->last = *s;
	/* GDB takes the reported thread as the one H last chose. */
	r->g_thread = r->c_thread = s->thread;
	if (tell)
		send_stop(r);
}

void gdb_rsp_exited(struct gdb_rsp *r, uint8_t status)
{
	if (!r->packets)
		return;
	out_reset(r);
	out_char(r, 'W');
	out_hex_byte(r, status);
	send_reply(r);
}

/* ---------------------------------------------------------- q packets */

static bool starts(const char *p, const char *end, const char *prefix,
		   const char **rest)
{
	while (*prefix) {
		if (p == end || *p != *prefix)
			return false;
		p++;
		prefix++;
	}
	*rest = p;
	return true;
}

/*
 * The target description, generated into the reply a window at a time
 * (qXfer:features:read:target.xml:OFFSET,LENGTH). Every chunk is the same
 * document, so the pieces GDB joins agree.
 */
struct xml_window {
	struct gdb_rsp *r;
	uint64_t pos, off, len;
};

static void xml_str(struct xml_window *w, const char *s)
{
	for (; *s; s++, w->pos++)
		if (w->pos >= w->off && w->pos < w->off + w->len)
			out_char(w->r, *s);
}

static void xml_num(struct xml_window *w, unsigned v)
{
	char buf[12];
	fmt_snprintf(buf, sizeof buf, "%u", v);
	xml_str(w, buf);
}

static void xml_target(struct xml_window *w, const struct gdb_rsp_arch *a)
{
	xml_str(w, "<?xml version=\"1.0\"?>\n"
		   "<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n"
		   "<target version=\"1.0\">\n<architecture>");
	xml_str(w, a->architecture);
	xml_str(w, "</architecture>\n");
	unsigned regno = 0;
	for (unsigned f = 0; f < a->nfeatures; f++) {
		const struct gdb_rsp_feature *ft = &a->features[f];
		xml_str(w, "<feature name=\"");
		xml_str(w, ft->name);
		xml_str(w, "\">\n");
		if (ft->types)
			xml_str(w, ft->types);
		for (unsigned i = 0; i < ft->nregs; i++, regno++) {
			const struct gdb_rsp_reg *g = &ft->regs[i];
			xml_str(w, "<reg name=\"");
			xml_str(w, g->name);
			xml_str(w, "\" bitsize=\"");
			xml_num(w, g->bits);
			xml_str(w, "\" type=\"");
			xml_str(w, g->type);
			xml_str(w, "\" regnum=\"");
			xml_num(w, regno);
			if (g->group) {
				xml_str(w, "\" group=\"");
				xml_str(w, g->group);
			}
			xml_str(w, "\"/>\n");
		}
		xml_str(w, "</feature>\n");
	}
	xml_str(w, "</target>\n");
}

static void cmd_xfer_features(struct gdb_rsp *r, const char *p,
			      const char *end)
{
	uint64_t off, len;
	if (!starts(p, end, "target.xml:", &p)) {
		reply(r, "E00");
		return;
	}
	if (!parse_range(&p, end, &off, &len, 0)) {
		reply(r, E_SYNTAX);
		return;
	}
	if (len > sizeof r->out - 1)
		len = sizeof r->out - 1;
	out_reset(r);
	r->out_binary = true;
	out_char(r, 'm');
	struct xml_window w = { r, 0, off, len };
	xml_target(&w, r->t->arch);
	if (off + len >= w.pos)
		r->out[0] = 'l';
	send_reply(r);
}

static void cmd_thread_list(struct gdb_rsp *r)
{
	out_reset(r);
	char sep = 'm';
	for (unsigned i = 1; i <= r->t->nthreads; i++) {
		if (!alive(r, i))
			continue;
		out_char(r, sep);
		out_hex_num(r, i);
		sep = ',';
	}
	if (sep == 'm')
		out_char(r, 'l');
	send_reply(r);
}

static void cmd_thread_extra(struct gdb_rsp *r, const char *p,
			     const char *end)
{
	unsigned th;
	bool all;
	if (!parse_thread(&p, end, &th, &all) || p != end || !alive(r, th)) {
		reply(r, E_INVAL);
		return;
	}
	char text[96] = "";
	r->t->describe(r->t->ctx, th, text, sizeof text);
	out_reset(r);
	for (const char *c = text; *c; c++)
		out_hex_byte(r, (uint8_t)*c);
	send_reply(r);
}

static void cmd_query(struct gdb_rsp *r, const char *p, const char *end)
{
	const char *rest;
	if (starts(p, end, "qSupported", &rest)) {
		out_reset(r);
		out_str(r, "PacketSize=");
		out_hex_num(r, GDB_RSP_PACKET_MAX);
		out_str(r, ";qXfer:features:read+;swbreak+;hwbreak+");
		send_reply(r);
	} else if (starts(p, end, "qXfer:features:read:", &rest)) {
		cmd_xfer_features(r, rest, end);
	} else if (starts(p, end, "qfThreadInfo", &rest) && rest == end) {
		cmd_thread_list(r);
	} else if (starts(p, end, "qsThreadInfo", &rest) && rest == end) {
		reply(r, "l");
	} else if (starts(p, end, "qThreadExtraInfo,", &rest)) {
		cmd_thread_extra(r, rest, end);
	} else if (starts(p, end, "qC", &rest) && rest == end) {
		out_reset(r);
		out_str(r, "QC");
		out_hex_num(r, r->last.thread);
		send_reply(r);
	} else if (starts(p, end, "qAttached", &rest)) {
		reply(r, "1");
	} else {
		reply(r, "");
	}
}

/* ------------------------------------------------------------- packets */

static void cmd_set_thread(struct gdb_rsp *r, const char *p, const char *end)
{
	if (p == end || (*p != 'g' && *p != 'c')) {
		reply(r, E_SYNTAX);
		return;
	}
	char which = *p++;
	unsigned th;
	bool all;
	if (!parse_thread(&p, end, &th, &all) || p != end) {
		reply(r, E_SYNTAX);
		return;
	}
	if (th && !alive(r, th)) {
		reply(r, E_INVAL);
		return;
	}
	if (which == 'g')
		r->g_thread = th;
	else
		r->c_thread = th;
	reply(r, "OK");
}

static void cmd_thread_alive(struct gdb_rsp *r, const char *p,
			     const char *end)
{
	unsigned th;
	bool all;
	bool ok = parse_thread(&p, end, &th, &all) && p == end &&
		  alive(r, th);
	reply(r, ok ? "OK" : E_INVAL);
}

static enum gdb_rsp_event dispatch(struct gdb_rsp *r)
{
	const char *p = r->in, *end = r->in + r->len;
	const char *rest;
	r->packets++;
	if (p == end) {
		reply(r, "");
		return GDB_RSP_NONE;
	}
	char cmd = *p++;
	switch (cmd) {
	case '?':
		send_stop(r);
		break;
	case 'g':
		cmd_read_regs(r);
		break;
	case 'G':
		cmd_write_regs(r, p, end);
		break;
	case 'p':
		cmd_read_reg(r, p, end);
		break;
	case 'P':
		cmd_write_reg(r, p, end);
		break;
	case 'm':
		cmd_read_mem(r, p, end);
		break;
	case 'M':
		cmd_write_mem_hex(r, p, end);
		break;
	case 'X':
		cmd_write_mem_bin(r, p, end);
		break;
	case 'Z':
	case 'z':
		cmd_point(r, cmd == 'Z', p, end);
		break;
	case 'H':
		cmd_set_thread(r, p, end);
		break;
	case 'T':
		cmd_thread_alive(r, p, end);
		break;
	case 'c':
	case 's':
		return cmd_resume(r, cmd == 's', false, p, end);
	case 'C':
	case 'S':
		return cmd_resume(r, cmd == 'S', true, p, end);
	case 'D':
		reply(r, "OK");
		return GDB_RSP_DETACH;
	case 'k':
		/* No reply (GDB manual, E.2 'k'). A kernel is not killed: GDB
		 * goes away and the machine runs on, as after D. */
		return GDB_RSP_DETACH;
	case 'q':
		cmd_query(r, r->in, end);
		break;
	case 'v':
		if (starts(r->in, end, "vCont?", &rest) && rest == end)
			reply(r, "vCont;c;C;s;S");
		else if (starts(r->in, end, "vCont", &rest) && rest < end &&
			 *rest == ';')
			return cmd_vcont(r, rest, end);
		else
			reply(r, "");
		break;
	default:
		reply(r, "");
		break;
	}
	return GDB_RSP_NONE;
}

void gdb_rsp_init(struct gdb_rsp *r, const struct gdb_rsp_target *t)
{
	/* Field by field: the structure is too large for a temporary on a
	 * kernel stack. */
	r->t = t;
	r->state = IDLE;
	r->out_len = 0;
	r->replied = false;
	r->g_thread = r->c_thread = 0;
	r->last = (struct gdb_rsp_stop){ .thread = 1, .signal = 5 };
	r->packets = r->bad_checksums = r->overlong = r->resent = 0;
}

enum gdb_rsp_event gdb_rsp_input(struct gdb_rsp *r, uint8_t c)
{
	int v;
	switch (r->state) {
	case IDLE:
		if (c == '$') {
			r->state = BODY;
			r->len = 0;
			r->sum = 0;
			r->overflow = false;
		} else if (c == '-' && r->replied) {
			r->resent++;
			send_reply(r);
		} else if (c == GDB_RSP_INTERRUPT) {
			return GDB_RSP_BREAK_IN;
		}
		/* '+' acknowledges our last reply; anything else is noise. */
		return GDB_RSP_NONE;
	case BODY:
		if (c == '#') {
			r->state = SUM_HI;
		} else if (c == '$') {
			/* A new start: what came before was a broken packet. */
			r->len = 0;
			r->sum = 0;
			r->overflow = false;
		} else {
			r->sum = (uint8_t)(r->sum + c);
			if (r->len < GDB_RSP_PACKET_MAX)
				r->in[r->len++] = (char)c;
			else
				r->overflow = true;
		}
		return GDB_RSP_NONE;
	case SUM_HI:
		v = hexval((char)c);
		if (v < 0)
			break;
		r->sum_seen = (uint8_t)(v << 4);
		r->state = SUM_LO;
		return GDB_RSP_NONE;
	case SUM_LO:
		v = hexval((char)c);
		if (v < 0)
			break;
		r->state = IDLE;
		if ((uint8_t)(r->sum_seen | v) != r->sum)
			break;
		put_raw(r, '+');
		if (r->overflow) {
			r->overlong++;
			reply(r, E_INVAL);
			return GDB_RSP_NONE;
		}
		r->in[r->len] = 0;
		return dispatch(r);
	}
	/* A bad checksum digit or sum: ask GDB to send it again. */
	r->state = IDLE;
	r->bad_checksums++;
	put_raw(r, '-');
	return GDB_RSP_NONE;
}
