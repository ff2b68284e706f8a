/* The node set: lowest-first allocation, lists per job, down and up, and
 * adoption of given nodes, on a size that spans several summary words. */
#include <stdlib.h>
#include "nodeset.h"
#include "tap.h"

static uint32_t list_len(const struct nodeset *ns, uint32_t first)
{
	uint32_t k = 0;

	for (uint32_t i = first; i != NODESET_NONE; i = ns->next[i])
		k++;
	return k;
}

int main(void)
{
	struct nodeset ns;
	uint32_t a, b, c, d;
	uint32_t n = 10000;	/* 157 words, 3 summary words */

	ok_eq(nodeset_init(&ns, 0), -1, "a partition of 0 nodes is refused");
	ok_eq(nodeset_init(&ns, n), 0, "init %u nodes", n);
	ok_eq(ns.nfree, n, "all free");
	ok_eq(nodeset_alloc(&ns, 100, 1, &a), 0, "job 1 takes 100");
	ok(a == 0 && list_len(&ns, a) == 100, "job 1 holds nodes 0.. (100 of them)");
	ok_eq(nodeset_alloc(&ns, 5000, 2, &b), 0, "job 2 takes 5000");
	ok_eq(b, 100, "job 2 starts at node 100 (lowest free)");
	ok_eq(nodeset_alloc(&ns, 4901, 3, &c), -1, "4901 more do not fit");
	ok_eq(ns.nfree, 4900, "and a refusal takes nothing");
	ok_eq(nodeset_release(&ns, a), 100, "job 1 gives 100 back");
	ok_eq(nodeset_alloc(&ns, 150, 3, &c), 0, "job 3 takes 150");
	ok(c == 0 && ns.next[99] == 5100, "job 3 gets 0..99 then 5100.. (lowest first)");
	ok_eq(ns.owner[5149], 3, "owners are recorded");
	ok(!nodeset_is_free(&ns, 5149) && nodeset_is_free(&ns, 5150), "free bits follow");

	ok_eq(nodeset_set_down(&ns, 5150), NODESET_NONE, "an idle node goes down");
	ok_eq(nodeset_set_down(&ns, 50), 3, "a held node goes down: its owner is named");
	ok_eq(ns.nfree, 10000 - 5000 - 150 - 1, "only the idle one leaves the free count");
	ok_eq(nodeset_release(&ns, c), 149, "job 3 gives back 149: the down node stays out");
	ok(!nodeset_is_free(&ns, 50) && ns.owner[50] == NODESET_NONE, "node 50 is down and unowned");
	ok_eq(nodeset_set_up(&ns, 50), NODESET_NONE, "node 50 comes back");
	ok(nodeset_is_free(&ns, 50) && ns.ndown == 1, "and is free; one node still down");

	ok_eq(nodeset_take(&ns, (uint32_t[]){ 7, 3, 9000 }, 3, 4, &d), 0, "take given nodes");
	ok(d == 7 && ns.next[7] == 3 && ns.next[3] == 9000, "linked in the order given");
	ok_eq(nodeset_take(&ns, (uint32_t[]){ 1, 3 }, 2, 5, &d), -1, "a held node is refused");
	ok(nodeset_is_free(&ns, 1), "and the nodes before it are given back");
	ok_eq(nodeset_take(&ns, (uint32_t[]){ 2, 2 }, 2, 5, &d), -1, "a node listed twice is refused");
	ok_eq(nodeset_take(&ns, (uint32_t[]){ 5150 }, 1, 5, &d), -1, "a down node is refused");
	ok_eq(nodeset_take(&ns, (uint32_t[]){ n }, 1, 5, &d), -1, "a node out of range is refused");
	ok_eq(ns.nfree, 10000 - 5000 - 1 - 3, "free count intact after refusals");

	/* Growing keeps what is held and down; the new nodes are free, found
	 * across new summary words, and listed after the old ones. */
	ok_eq(nodeset_grow(&ns, n - 1), -1, "grow: shrinking is refused");
	ok_eq(nodeset_grow(&ns, 300000), 0, "grow: 10000 -> 300000 nodes (3 to 74 summary words)");
	ok(ns.n == 300000 && ns.nfree == 10000 - 5000 - 1 - 3 + 290000 && ns.ndown == 1,
	   "grow: 290000 more free, the held and down nodes as they were");
	ok(ns.owner[7] == 4 && ns.next[7] == 3 && !nodeset_is_free(&ns, 5150) && ns.down[5150],
	   "grow: a job's list and a down node survive");
	ok(nodeset_is_free(&ns, 10000) && nodeset_is_free(&ns, 299999) && !ns.down[299999] &&
	   ns.owner[299999] == NODESET_NONE, "grow: the new nodes are up, free and unowned");
	ok_eq(nodeset_alloc(&ns, ns.nfree, 6, &d), 0, "grow: take every free node");
	ok(ns.nfree == 0 && list_len(&ns, d) == 10000 - 5000 - 1 - 3 + 290000,
	   "grow: all of them, old and new");
	nodeset_release(&ns, d);
	ok_eq(nodeset_set_down(&ns, 299999), NODESET_NONE, "grow: a new node can go down");
	nodeset_destroy(&ns);
	return tap_done();
}
