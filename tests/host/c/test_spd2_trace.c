/*
 * A worked example in the spirit of staggered Pfair, Fig. 6: four tasks on
 * two processors, T1 = 1/2, T2 = 1/3, T3 = 2/3 (heavy), T4 = 1/2 (total 2).
 * The schedule and T3's path through the heaps of Fig. 5 were derived by
 * hand from Fig. 5, line by line (CPUs 0 and 1 are the paper's P1 and P2):
 *
 *   Initialize: Eligible = {T3, T1, T4, T2} by PD2 priority (T3: d=2, b=1
 *   beats T1 and T4: d=2, b=0, index order; T2: d=3); SchedNext = {T3, T1}.
 *   Slot 0, P1: SchedNow = {T3, T1}; Extract-Min gives T1 (lower). T1's
 *       subtask 2 is released at 2 > t+1: Incoming[2]. Eligible's max T4
 *       goes to SchedNext.
 *   Slot 0, P2: T3 runs; its subtask 2 (r=1, d=3, b=0) is eligible at 1:
 *       Eligible. Max of {T2 (d=3, index 1), T3 (d=3, index 2)} is T2.
 *   Slot 1, P1: Incoming[2] = {T1} merged; SchedNow = {T4, T2}: T2 runs
 *       (r=3: Incoming[3]). Eligible's max is T3 (d=3): SchedNext (T3 did
 *       not run in slot 1).
 *   Slot 1, P2: T4 runs (requeued: Eligible); T1 (d=4, index 0) selected.
 *   Slot 2, P1: SchedNow = {T3, T1}: T1 runs; T4 selected.
 *   Slot 2, P2: T3 runs; subtask 3 (r=3, d=5, b=1) is eligible at 3 and is
 *       the max of Eligible: it ran in slot 2, so ReschedNext.
 *   Slot 3, P1: Running[P1] = T1 is not in ReschedNow: T4 from SchedNow.
 *   Slot 3, P2: Running[P2] = T3 is in ReschedNow: T3 again, on P2 (back to
 *       back). Then T2 is selected (all deadlines 6, index order).
 *   Slot 4: SchedNow = {T1, T2}: P1 takes the min, T2; T3 (index 2 beats
 *       T4) goes to SchedNext; P2 runs T1.
 *   Slot 5: SchedNow = {T3, T4}: P1 runs T4, P2 runs T3, whose subtask 5
 *       (job 3: r=6, d=8, b=1) is selected back to back: ReschedNext.
 *   Slot 6: P1 runs T1 (SchedNow), P2 runs T3 (ReschedNow).
 *
 * T3's deadlines: subtask 2 (d=3) ends at 2 + 1 + 1/2 and subtask 4 (d=6)
 * at 6.5 on P2: two misses by 1/2 (Sec. 4, E1), none by more.
 */
#include <string.h>

#include "../../../lib/taskset.h"
#include "../../../sched/pfair/spd2.h"
#include "../../../sched/sched.h"
#include "unit.h"

static const char *const set =
	"task T1 e=1 p=2\n"
	"task T2 e=1 p=3\n"
	"task T3 e=2 p=3\n"
	"task T4 e=1 p=2\n";

static const char *const schedule[7][2] = {
	{ "T1", "T3" }, { "T2", "T4" }, { "T1", "T3" }, { "T4", "T3" },
	{ "T2", "T1" }, { "T4", "T3" }, { "T1", "T3" },
};

/* T3 after Initialize, then after each Schedule(p), slot by slot. */
static const enum spd2_where t3_trace[1 + 7 * 2] = {
	SPD2_SCHED_NEXT,
	SPD2_SCHED_NOW, SPD2_ELIGIBLE,
	SPD2_SCHED_NEXT, SPD2_SCHED_NEXT,
	SPD2_SCHED_NOW, SPD2_RESCHED_NEXT,
	SPD2_RESCHED_NOW, SPD2_ELIGIBLE,
	SPD2_SCHED_NEXT, SPD2_SCHED_NEXT,
	SPD2_SCHED_NOW, SPD2_RESCHED_NEXT,
	SPD2_RESCHED_NOW, SPD2_ELIGIBLE,
};

int main(void)
{
	struct task_spec tasks[8];
	struct taskset_event events[1];
	struct taskset ts = { .task = tasks, .max_tasks = 8, .event = events,
			      .max_events = 1 };
	char err[256];
	if (taskset_parse(&ts, "fig6.tasks", set, strlen(set), err, sizeof err)) {
		printf("parse: %s\n", err);
		return 1;
	}
	struct sched_env env = { .alloc = unit_alloc,
				 .resched = unit_no_resched };
	struct sched_config cfg = { .cpus = 2, .staggered = 1, .tasks = &ts };
	struct sched_error serr;
	const struct sched_plugin *pl = sched_find("spd2");
	void *s = pl->create(&cfg, &env, &serr);
	unsigned step = 0;
	if (spd2_where(s, 2) != t3_trace[step++]) {
		printf("after Initialize: T3 in %s\n",
		       spd2_where_name(spd2_where(s, 2)));
		failures++;
	}
	for (unsigned t = 0; t < 7; t++)
		for (unsigned p = 0; p < 2; p++) {
			int got = pl->schedule(s, p, t);
			const char *name = got < 0 ? "idle" : tasks[got].name;
			if (strcmp(name, schedule[t][p])) {
				printf("slot %u P%u: ran %s, expected %s\n", t,
				       p + 1, name, schedule[t][p]);
				failures++;
			}
			enum spd2_where w = spd2_where(s, 2);
			if (w != t3_trace[step]) {
				printf("slot %u after Schedule(P%u): T3 in %s, "
				       "expected %s\n", t, p + 1,
				       spd2_where_name(w),
				       spd2_where_name(t3_trace[step]));
				failures++;
			}
			step++;
			/* T1 waits in Incoming[2] after it ran in slot 0. */
			if (t == 0 && p == 0 &&
			    (spd2_where(s, 0) != SPD2_INCOMING ||
			     spd2_incoming_slot(s, 0) != 2)) {
				printf("T1 not in Incoming[2] after slot 0\n");
				failures++;
			}
		}
	struct sched_task_stats st;
	pl->stats(s, 2, &st);
	if (st.quanta != 5 || st.misses != 2 || st.max_tardiness_num != 1 ||
	    st.tardiness_den != 2) {
		printf("T3 stats: quanta %llu misses %llu tardiness %llu/%llu\n",
		       (unsigned long long)st.quanta,
		       (unsigned long long)st.misses,
		       (unsigned long long)st.max_tardiness_num,
		       (unsigned long long)st.tardiness_den);
		failures++;
	}
	unit_free();
	if (!failures)
		printf("spd2 worked example: ok\n");
	return failures != 0;
}
