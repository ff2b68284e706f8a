/* The scheduling policies behind one table of functions each, as
 * OpenSMTPD's scheduler backends are: sched.c keeps the job table, the
 * queue, the running jobs' holds in the plan, the deadline heap and the
 * actions, and asks the policy, through s->pol, what each event means for
 * the queued jobs. It names no policy: s->pol is chosen from prm.policy
 * when the scheduler is made (sched_new) and again when the policy changes
 * (sched_set_policy), and sched_policy_ops() is the only place that maps
 * the one to the other.
 *
 * A new policy is a file with its table (a `const struct sched_policy_ops`
 * named <prefix>_policy), declared below, plus its number in enum
 * sched_policy (sched.h) and its entry in sched.c's table of policies.
 *
 * Every hook but pass and adopt may be NULL: the policy has nothing to do
 * at that point, and sched.c does only its generic part around the call
 * (as FCFS, EASY and CREASY, which plan only the running jobs and promise
 * only the head, leave most of them). No hook is a shared default: a
 * policy that does the same as another points at the same function. All
 * run inside the pure core (no clock, no I/O) and after the caller made
 * room for what they change (profile_prepare, sched_need_actions), so
 * none fails but where it returns an int. */
#ifndef BF_SCHED_POLICY_H
#define BF_SCHED_POLICY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sched.h"

struct queue_snap;

/* (Not `struct sched_policy`: a struct's tag shares its name space with
 * enum sched_policy's, which the drivers use.) */
struct sched_policy_ops {
	/* As drivers store and print it (sched_policy_name/_parse). */
	const char *name;
	/* Every queued job holds a reservation in the plan, its guaranteed
	 * start, which only the causes of sched_broken_why move later
	 * (conservative). Otherwise the plan holds the running jobs only
	 * and a pass promises the head its shadow time: a forecast plans
	 * the queue on a copy, and nothing checks the other jobs' starts
	 * against a promise. */
	bool reserves;
	/* No job starts before one queued ahead of it (FCFS): a forecast
	 * plans each job no earlier than the one before. */
	bool keeps_order;

	/* The scheduling pass (sched_run), after the jobs at their limits
	 * were signalled and any repair a longer hold asked for was made:
	 * start what may start, promise what the policy promises. */
	int  (*pass)(struct sched *s, bf_time now);
	/* Before a newcomer joins the queue, while s->need_compress says
	 * holes opened (ends come before arrivals): close them first. */
	int  (*compress)(struct sched *s, bf_time now);
	/* A job joined the tail of the queue (sched_submit). */
	void (*arrive)(struct sched *s, uint32_t slot, bf_time now);
	/* A queued job restored after a restart, in arrival order, with the
	 * start promised to it (BF_NEVER: none). */
	void (*restore)(struct sched *s, uint32_t slot, bf_time now, bf_time promised);
	/* The plan gained free nodes over [start, end): a job ended or its
	 * hold shrank, a node came back, the partition grew, a cap was
	 * raised, or a restore says the acknowledged plan had room there.
	 * sched.c sets need_compress where the event asks for it. */
	void (*freed)(struct sched *s, bf_time start, bf_time end);
	/* A queued job's place in the plan goes: it is cancelled (then it
	 * leaves the queue), or its limit changes (then limit_changed). */
	void (*forget)(struct sched *s, uint32_t slot);
	/* A queued job's limit changed (its hold is the new one already);
	 * `was` its promise before (BF_NEVER: none). */
	void (*limit_changed)(struct sched *s, uint32_t slot, bf_time now, bf_time was);
	/* The plan may need more nodes than are up somewhere, or a user
	 * more places than the cap: a node was lost or drained, or a running
	 * job's hold grew (s->hold_extended); why: the cause told to a job
	 * whose promise moves later. */
	int  (*repair)(struct sched *s, bf_time now, enum sched_broken_why why);
	/* An operator put a queued job first (sched_top); moved: it was not
	 * first already (sched.c moved it to the head of the queue). */
	void (*top)(struct sched *s, uint32_t slot, bf_time now, bool moved);
	/* The cap on running jobs per user was set or lowered. */
	void (*cap_lowered)(struct sched *s, bf_time now);
	/* The queued jobs in the order a forecast plans them, when that is
	 * not queue order (CREASY: by priority at now): out has room for
	 * the queue; returns how many were written. */
	size_t (*order)(const struct sched *s, bf_time now, struct queue_snap *out);
	/* The scheduler is freed under this policy: what the policy holds
	 * beyond the arrays sched.c frees. */
	void (*destroy)(struct sched *s);

	/* A change of policy (sched_set_policy): first the room the new
	 * policy's adopt and the old one's drop need (0 or -1, nothing
	 * changed yet), then the old policy's drop (the plan keeps the
	 * running jobs only: every reservation it held goes; each job's resv
	 * still names its promise), then the new policy's adopt, from the
	 * old policy `from`, with s->pol and prm.policy already the new. */
	int  (*drop_room)(struct sched *s);
	void (*drop)(struct sched *s);
	int  (*adopt_room)(struct sched *s);
	void (*adopt)(struct sched *s, bf_time now, const struct sched_policy_ops *from);
};

/* The table of a policy; NULL for a number no policy has. */
const struct sched_policy_ops *sched_policy_ops(enum sched_policy p);

extern const struct sched_policy_ops fcfs_policy;	/* sched_easy.c */
extern const struct sched_policy_ops easy_policy;	/* sched_easy.c */
extern const struct sched_policy_ops cons_policy;	/* sched_cons.c */
extern const struct sched_policy_ops creasy_policy;	/* sched_creasy.c */

#endif
