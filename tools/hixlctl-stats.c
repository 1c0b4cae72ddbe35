// SPDX-License-Identifier: GPL-2.0
/*
 * hixlctl-stats.c - `hixlctl stats [--json|--prometheus]`: every engine on
 * the host and each of its links, with the data-path counters
 * (HIXL_IOC_ENGINES and HIXL_IOC_LINK_STATS through hixl_dev_engines() and
 * hixl_dev_link_stats()).  Needs only permission to open /dev/hixl (the
 * group hixl), not root or debugfs.
 *
 * hixlctl's own descriptor (an engine of nobody's, flagged SELF) is left
 * out.  Text: one line per engine, then one indented line per link,
 * key=value, and under each link one line per further rail paired with
 * its peer (hixl_dev_link_stats_rails(): the rail's state, the peer's
 * address on it, its own counters).
 * With HIXL_FEAT_STATS_RAILS, each engine line is followed by one line
 * per rail of the engine (hixl_dev_engines_rails(): address, device,
 * state, NUMA node, links up, MRs and the engine's counters of that rail,
 * since SETUP), indented as its links: "  rail engine=... rail=0 ...".
 * --json: {"engines": [{..., "rails": [{...}], "links": [{..., "rails":
 * [{...}]}]}]} (the engine's "rails" only from such a module), every
 * counter a number.
 * With HIXL_FEAT_LATENCY, every engine and link also has its TRANSFER
 * latency histogram (hixl_dev_engines_latency(),
 * hixl_dev_link_stats_latency(); struct hixl_lat_hist): text
 * latency_count=, latency_sum_ns=, latency_buckets=b0,b1,... (not
 * cumulative, bucket i: at most 2^i us, the last +Inf); JSON "latency":
 * {"count", "sum_ns", "le_ns": [bounds], "buckets": [...]}.
 * --prometheus: the text exposition format 0.0.4: hixl_engine_* families
 * (an engine's totals, closed links included) and hixl_link_* families (a
 * live link's own; hixl_link_rails_up: its rails that are ready) and
 * hixl_rail_* families (each rail of an engine: up, links up, bytes,
 * failovers away, bytes re-posted onto it), each
 * with # HELP and # TYPE, counters ending in _total, and the histograms
 * hixl_engine_transfer_duration_seconds and
 * hixl_link_transfer_duration_seconds (_bucket{le=...}, _sum, _count);
 * labels name (the engine's address:port), peer, rail, device, op, path:
 * what stays the same when a process restarts, so a restart does not
 * start new series.  --ids adds pid and engine (its number), which change
 * on every restart; without it an engine not set up (no name) and a link
 * whose peer is not named yet are left out, as their series would clash,
 * and engines that share a name (one address in several network
 * namespaces) get the engine label, for the same reason.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hixl/hixl.h>
#include "hixlctl.h"

struct eng_rec {
	struct hixl_engine_stat e;
	char name[HIXL_ENGINE_NAME_MAX];
	struct hixl_link_stat *links;
	uint32_t nlinks;
	struct hixl_rail_stat rails[HIXL_MAX_RAILS];
	uint32_t nrails;	/* rails[] filled: 0 from a module without them */
	int has_lat;		/* lat and llat filled (HIXL_FEAT_LATENCY) */
	int dup;		/* another engine has the same name (another netns) */
	struct hixl_lat_hist lat;
	struct hixl_lat_hist *llat;	/* one per links[] entry */
};

static int prom_ids;	/* --ids: pid and engine labels too */

static const char *rail_state(uint32_t s)
{
	static const char *const n[] = { "none", "up", "down", "removed" };

	return s < sizeof(n) / sizeof(n[0]) ? n[s] : "unknown";
}

static void rail_addr(const struct hixl_rail_stat *r, char *buf, size_t len)
{
	if (hixl_format_engine_name(&r->addr, buf, len))
		snprintf(buf, len, "-");
}

static const char *const state_names[] = { "connecting", "ready", "error", "closed" };

static const char *link_state(uint32_t s)
{
	return s < sizeof(state_names) / sizeof(state_names[0]) ? state_names[s] : "unknown";
}

/* A counter of struct hixl_xfer_stats by its index (the struct is all __u64). */
static unsigned long long ctr(const struct hixl_xfer_stats *x, int i)
{
	return (unsigned long long)((const __u64 *)x)[i];
}

/* Fields of struct hixl_xfer_stats, in order, as text and JSON keys. */
static const char *const ctr_names[] = {
	"read_direct_bytes", "read_direct_ops", "read_staged_bytes", "read_staged_ops",
	"write_direct_bytes", "write_direct_ops", "write_staged_bytes", "write_staged_ops",
	"errors", "wc_errors", "timeouts", "cancels", "link_resets", "connects",
	"connect_failures", "accepts", "connect_us_last", "connect_us_sum",
	"local_bytes", "local_ops", "rail_failovers", "rail_repost_bytes",
};
#define NCTR ((int)(sizeof(ctr_names) / sizeof(ctr_names[0])))
_Static_assert(sizeof(ctr_names) / sizeof(ctr_names[0]) * 8 ==
	       offsetof(struct hixl_xfer_stats, reserved), "ctr_names covers hixl_xfer_stats");

static void peer_name(const struct hixl_link_stat *l, char *buf, size_t len)
{
	if (!(l->flags & HIXL_LINK_STAT_NAMED) ||
	    hixl_format_engine_name(&l->peer, buf, len))
		snprintf(buf, len, "-");
}

/* Read every engine and its links; *@out is an array of *@n records. */
static int collect(struct eng_rec **out, uint32_t *n)
{
	struct hixl_engine_stat *es = NULL;
	struct hixl_rail_stat *rs = NULL;
	struct hixl_lat_hist *lh = NULL;
	struct hixl_info info;
	struct eng_rec *r;
	uint32_t total = 0, cnt = 0, n_out = 0;
	int fd, ret, rails, lat;

	fd = hixl_dev_open(NULL);
	if (fd < 0) {
		tool_error(HIXL_DEVICE_PATH, fd);	/* as info says it, with the hint */
		return -1;
	}
	/* each engine's rails too, from a module that has them (and for up to 1024) */
	rails = !hixl_dev_get_info(fd, &info) && (info.features & HIXL_FEAT_STATS_RAILS);
	/* and each engine's and link's latency histogram, from a module that keeps them */
	lat = rails && (info.features & HIXL_FEAT_LATENCY);
	/* engines come and go between the calls: ask until the room was enough */
	for (int tries = 0; tries < 8; tries++) {
		ret = hixl_dev_engines(fd, NULL, 0, &total);
		if (ret < 0)
			break;
		free(es);
		free(rs);
		free(lh);
		rs = NULL;
		lh = NULL;
		cnt = total + 8;
		if (cnt > HIXL_MAX_RAIL_STAT_ENGINES)
			rails = 0;
		es = calloc(cnt, sizeof(*es));
		if (rails)
			rs = calloc((size_t)cnt * HIXL_MAX_RAILS, sizeof(*rs));
		if (lat)
			lh = calloc(cnt, sizeof(*lh));
		if (!es || (rails && !rs) || (lat && !lh)) {
			ret = -ENOMEM;
			break;
		}
		if (lat)
			ret = hixl_dev_engines_latency(fd, es, rs, lh, cnt, &total);
		else
			ret = rails ? hixl_dev_engines_rails(fd, es, rs, cnt, &total) :
				      hixl_dev_engines(fd, es, cnt, &total);
		if (ret < 0 || total <= cnt)
			break;
	}
	if (ret < 0) {
		fprintf(stderr, "hixlctl: ENGINES: %s%s\n", strerror(-ret),
			ret == -ENOTTY || ret == -EINVAL ? " (hixl.ko without HIXL_FEAT_XFER_STATS?)" : "");
		free(es);
		free(rs);
		free(lh);
		close(fd);
		return -1;
	}
	cnt = (uint32_t)ret;
	r = calloc(cnt ? cnt : 1, sizeof(*r));
	if (!r) {
		free(es);
		free(rs);
		free(lh);
		close(fd);
		return -1;
	}
	for (uint32_t j = 0, i = 0; j < cnt; j++) {
		int (*ls)(int, uint64_t, struct hixl_link_stat *, uint32_t, uint32_t *) =
			hixl_dev_link_stats_rails;
		uint32_t lt = 0, lc;

		if (es[j].flags & HIXL_ENGINE_STAT_SELF)
			continue;	/* hixlctl's own descriptor: no engine of anyone's */
		i = n_out++;
		r[i].e = es[j];
		if (lh) {
			r[i].has_lat = 1;
			r[i].lat = lh[j];
		}
		if (rs) {
			r[i].nrails = es[j].nr_rails < HIXL_MAX_RAILS ? es[j].nr_rails : HIXL_MAX_RAILS;
			memcpy(r[i].rails, &rs[(size_t)j * HIXL_MAX_RAILS],
			       r[i].nrails * sizeof(*rs));
			/* a busy engine's device side was not read: no rails */
			while (r[i].nrails && r[i].rails[r[i].nrails - 1].state == HIXL_RAIL_STATE_NONE)
				r[i].nrails--;
		}
		if (!(r[i].e.flags & HIXL_ENGINE_STAT_SETUP) ||
		    hixl_format_engine_name(&r[i].e.local, r[i].name, sizeof(r[i].name)))
			snprintf(r[i].name, sizeof(r[i].name), "-");
		/* with each link's rails; a module without them: links only */
		ret = hixl_dev_link_stats_rails(fd, r[i].e.id, NULL, 0, &lt);
		if (ret == -EINVAL)
			ls = hixl_dev_link_stats;
		ret = ls(fd, r[i].e.id, NULL, 0, &lt);
		if (ret < 0)
			continue;	/* closed meanwhile: no links shown */
		lc = lt + 8;
		r[i].links = calloc(lc, sizeof(*r[i].links));
		if (lh)
			r[i].llat = calloc(lc, sizeof(*r[i].llat));
		if (!r[i].links || (lh && !r[i].llat))
			continue;
		if (lh)
			ret = hixl_dev_link_stats_latency(fd, r[i].e.id, r[i].links, r[i].llat, lc, &lt);
		else
			ret = ls(fd, r[i].e.id, r[i].links, lc, &lt);
		r[i].nlinks = ret < 0 ? 0 : (uint32_t)ret;
	}
	free(es);
	free(rs);
	free(lh);
	close(fd);
	*out = r;
	*n = n_out;
	return 0;
}

/* The histogram as text: " latency_count=N latency_sum_ns=N latency_buckets=b0,b1,..." */
static void text_lat(const struct hixl_lat_hist *h)
{
	printf(" latency_count=%llu latency_sum_ns=%llu latency_buckets=",
	       (unsigned long long)h->count, (unsigned long long)h->sum_ns);
	for (int b = 0; b < HIXL_LAT_BUCKETS; b++)
		printf("%s%llu", b ? "," : "", (unsigned long long)h->bucket[b]);
}

static void print_text(const struct eng_rec *r, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		const struct hixl_engine_stat *e = &r[i].e;

		printf("engine=%llu pid=%u name=%s device=%s rails=%u links=%u regions=%llu",
		       (unsigned long long)e->id, e->pid, r[i].name,
		       e->device[0] ? e->device : "-", e->nr_rails, e->nr_links,
		       (unsigned long long)e->regions);
		for (int c = 0; c < NCTR; c++)
			printf(" %s=%llu", ctr_names[c], ctr(&e->xfer, c));
		if (r[i].has_lat)
			text_lat(&r[i].lat);
		printf("\n");
		for (uint32_t k = 0; k < r[i].nrails; k++) {
			const struct hixl_rail_stat *rl = &r[i].rails[k];
			char addr[HIXL_ENGINE_NAME_MAX];

			rail_addr(rl, addr, sizeof(addr));
			printf("  rail engine=%llu rail=%u address=%s device=%s state=%s node=%d "
			       "links=%u links_up=%u mrs=%llu", (unsigned long long)e->id, rl->rail,
			       addr, rl->device[0] ? rl->device : "-", rail_state(rl->state),
			       rl->numa_node, rl->links, rl->links_up, (unsigned long long)rl->mrs);
			for (int c = 0; c < NCTR; c++)
				printf(" %s=%llu", ctr_names[c], ctr(&rl->xfer, c));
			printf("\n");
		}
		for (uint32_t k = 0; k < r[i].nlinks; k++) {
			const struct hixl_link_stat *l = &r[i].links[k];
			char peer[HIXL_ENGINE_NAME_MAX];

			if (l->rail) {	/* a rail of the link above */
				peer_name(l, peer, sizeof(peer));
				printf("    rail engine=%llu rail=%u address=%s state=%s err=%d%s",
				       (unsigned long long)e->id, l->rail, peer, link_state(l->state),
				       l->err, l->flags & HIXL_LINK_STAT_NO_LINK ? " connection=none" : "");
				for (int c = 0; c < NCTR; c++)
					printf(" %s=%llu", ctr_names[c], ctr(&l->xfer, c));
				printf("\n");
				continue;
			}
			peer_name(l, peer, sizeof(peer));
			printf("  link engine=%llu peer=%s side=%s state=%s err=%d transport=%s",
			       (unsigned long long)e->id, peer,
			       l->flags & HIXL_LINK_STAT_ACTIVE ? "active" : "passive",
			       link_state(l->state), l->err,
			       l->flags & HIXL_LINK_STAT_LOCAL ? "local" : "rdma");
			for (int c = 0; c < NCTR; c++)
				printf(" %s=%llu", ctr_names[c], ctr(&l->xfer, c));
			if (r[i].has_lat)
				text_lat(&r[i].llat[k]);
			printf("\n");
		}
	}
}

/* @s as a JSON string (names and device names: escape what must be). */
static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

static void json_ctrs(const struct hixl_xfer_stats *x)
{
	for (int c = 0; c < NCTR; c++)
		printf(", \"%s\": %llu", ctr_names[c], ctr(x, c));
}

/* ", \"latency\": {...}": count, sum_ns, each bucket's bound (ns; null: +Inf), buckets */
static void json_lat(const struct hixl_lat_hist *h)
{
	printf(", \"latency\": {\"count\": %llu, \"sum_ns\": %llu, \"le_ns\": [",
	       (unsigned long long)h->count, (unsigned long long)h->sum_ns);
	for (int b = 0; b < HIXL_LAT_BUCKETS; b++) {
		if (b == HIXL_LAT_BUCKETS - 1)
			printf(", null");
		else
			printf("%s%llu", b ? ", " : "", (unsigned long long)HIXL_LAT_BOUND_NS(b));
	}
	printf("], \"buckets\": [");
	for (int b = 0; b < HIXL_LAT_BUCKETS; b++)
		printf("%s%llu", b ? ", " : "", (unsigned long long)h->bucket[b]);
	printf("]}");
}

static void print_json(const struct eng_rec *r, uint32_t n)
{
	printf("{\"engines\": [");
	for (uint32_t i = 0; i < n; i++) {
		const struct hixl_engine_stat *e = &r[i].e;

		printf("%s{\"engine\": %llu, \"pid\": %u, \"name\": ", i ? ", " : "",
		       (unsigned long long)e->id, e->pid);
		json_str(r[i].name);
		printf(", \"device\": ");
		json_str(e->device);
		printf(", \"nr_rails\": %u, \"nr_links\": %u, \"regions\": %llu, \"host_bytes\": %llu, "
		       "\"device_bytes\": %llu", e->nr_rails, e->nr_links, (unsigned long long)e->regions,
		       (unsigned long long)e->host_bytes, (unsigned long long)e->device_bytes);
		json_ctrs(&e->xfer);
		if (r[i].has_lat)
			json_lat(&r[i].lat);
		if (r[i].nrails) {
			printf(", \"rails\": [");
			for (uint32_t k = 0; k < r[i].nrails; k++) {
				const struct hixl_rail_stat *rl = &r[i].rails[k];
				char addr[HIXL_ENGINE_NAME_MAX];

				rail_addr(rl, addr, sizeof(addr));
				printf("%s{\"rail\": %u, \"address\": ", k ? ", " : "", rl->rail);
				json_str(addr);
				printf(", \"device\": ");
				json_str(rl->device);
				printf(", \"state\": \"%s\", \"numa_node\": %d, \"links\": %u, "
				       "\"links_up\": %u, \"mrs\": %llu", rail_state(rl->state),
				       rl->numa_node, rl->links, rl->links_up,
				       (unsigned long long)rl->mrs);
				json_ctrs(&rl->xfer);
				printf("}");
			}
			printf("]");
		}
		printf(", \"links\": [");
		for (uint32_t k = 0, nl = 0; k < r[i].nlinks; k++) {
			const struct hixl_link_stat *l = &r[i].links[k];
			char peer[HIXL_ENGINE_NAME_MAX];
			uint32_t nr = 0;

			if (l->rail)
				continue;	/* printed in its link's "rails" */
			peer_name(l, peer, sizeof(peer));
			printf("%s{\"peer\": ", nl++ ? ", " : "");
			json_str(peer);
			printf(", \"side\": \"%s\", \"state\": \"%s\", \"err\": %d, "
			       "\"transport\": \"%s\"",
			       l->flags & HIXL_LINK_STAT_ACTIVE ? "active" : "passive",
			       link_state(l->state), l->err,
			       l->flags & HIXL_LINK_STAT_LOCAL ? "local" : "rdma");
			json_ctrs(&l->xfer);
			if (r[i].has_lat)
				json_lat(&r[i].llat[k]);
			printf(", \"rails\": [");
			for (uint32_t j = k + 1; j < r[i].nlinks && r[i].links[j].rail; j++) {
				const struct hixl_link_stat *rl = &r[i].links[j];

				peer_name(rl, peer, sizeof(peer));
				printf("%s{\"rail\": %u, \"address\": ", nr++ ? ", " : "", rl->rail);
				json_str(peer);
				printf(", \"state\": \"%s\", \"err\": %d, \"connection\": %s",
				       link_state(rl->state), rl->err,
				       rl->flags & HIXL_LINK_STAT_NO_LINK ? "false" : "true");
				json_ctrs(&rl->xfer);
				printf("}");
			}
			printf("]}");
		}
		printf("]}");
	}
	printf("]}\n");
}

/* A Prometheus label value: \, " and newline escaped. */
static void prom_val(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			printf("\\%c", *s);
		else if (*s == '\n')
			printf("\\n");
		else
			putchar(*s);
	}
	putchar('"');
}

/* A metric family: its name after hixl_engine_/hixl_link_, and its samples. */
struct prom_family {
	const char *name;	/* e.g. "transfer_bytes_total" */
	const char *type;	/* counter, gauge, summary */
	const char *help;
	int ctr;		/* first counter index; -1: special */
	int split;		/* 1: four samples by op and path from @ctr */
};

static const struct prom_family families[] = {
	{ "transfer_bytes_total", "counter",
	  "Bytes of transfer descriptors that completed, by op (read, write) and path (direct, staged).",
	  0, 1 },
	{ "transfer_descriptors_total", "counter",
	  "Transfer descriptors that completed, by op and path.", 1, 1 },
	{ "transfer_errors_total", "counter",
	  "TRANSFERs that failed other than by timeout or cancel.", 8, 0 },
	{ "work_completion_errors_total", "counter",
	  "Transfer work completions with an error status (not flushes).", 9, 0 },
	{ "transfer_timeouts_total", "counter", "TRANSFERs that timed out.", 10, 0 },
	{ "transfer_cancels_total", "counter", "TRANSFERs that were cancelled.", 11, 0 },
	{ "link_resets_total", "counter", "Links that broke while ready.", 12, 0 },
	{ "connects_total", "counter", "CONNECTs whose link became ready.", 13, 0 },
	{ "connect_failures_total", "counter", "CONNECTs that failed after their link was made.",
	  14, 0 },
	{ "accepts_total", "counter", "Accepted links that became ready.", 15, 0 },
	{ "connect_last_seconds", "gauge", "Duration of the last successful CONNECT.", 16, 0 },
	{ "connect_seconds", "summary", "Durations of the successful CONNECTs.", -1, 0 },
};

/* The engine's labels: name, and with --ids pid and engine first. */
static void prom_engine_labels(const struct eng_rec *r)
{
	if (prom_ids)
		printf("pid=\"%u\",engine=\"%llu\",", r->e.pid, (unsigned long long)r->e.id);
	else if (r->dup)	/* the name alone would make two series one */
		printf("engine=\"%llu\",", (unsigned long long)r->e.id);
	printf("name=");
	prom_val(r->name);
}

/*
 * Without --ids, an engine with no name (not set up) and a link whose peer
 * is not named have no label that tells them from another such: left out.
 */
static int prom_skip_engine(const struct eng_rec *r)
{
	return !prom_ids && !strcmp(r->name, "-");
}

static int prom_skip_link(const struct eng_rec *r, const struct hixl_link_stat *l)
{
	return l->rail || prom_skip_engine(r) || (!prom_ids && !(l->flags & HIXL_LINK_STAT_NAMED));
}

/* {engine's labels[,peer=][,op=,path=][,le=]}: @peer, @op, @le NULL: none */
static void prom_labels_le(const struct eng_rec *r, const char *peer, const char *op,
			   const char *path, const char *le)
{
	printf("{");
	prom_engine_labels(r);
	if (peer) {
		printf(",peer=");
		prom_val(peer);
	}
	if (op)
		printf(",op=\"%s\",path=\"%s\"", op, path);
	if (le)
		printf(",le=\"%s\"", le);
	printf("}");
}

static void prom_labels(const struct eng_rec *r, const char *peer, const char *op,
			const char *path)
{
	prom_labels_le(r, peer, op, path, NULL);
}

/* The samples of family @f for one engine or link (@x), @peer NULL for an engine. */
static void prom_samples(const char *prefix, const struct prom_family *f,
			 const struct eng_rec *r, const char *peer,
			 const struct hixl_xfer_stats *x)
{
	static const char *const ops[] = { "read", "write" }, *const paths[] = { "direct", "staged" };

	if (f->split) {
		for (int o = 0; o < 2; o++)
			for (int p = 0; p < 2; p++) {
				printf("hixl_%s_%s", prefix, f->name);
				prom_labels(r, peer, ops[o], paths[p]);
				printf(" %llu\n", ctr(x, f->ctr + 4 * o + 2 * p));
			}
	} else if (f->ctr == 16) {
		printf("hixl_%s_%s", prefix, f->name);
		prom_labels(r, peer, NULL, NULL);
		printf(" %.6f\n", ctr(x, 16) / 1e6);
	} else if (f->ctr < 0) {
		printf("hixl_%s_%s_sum", prefix, f->name);
		prom_labels(r, peer, NULL, NULL);
		printf(" %.6f\n", ctr(x, 17) / 1e6);
		printf("hixl_%s_%s_count", prefix, f->name);
		prom_labels(r, peer, NULL, NULL);
		printf(" %llu\n", ctr(x, 13));
	} else {
		printf("hixl_%s_%s", prefix, f->name);
		prom_labels(r, peer, NULL, NULL);
		printf(" %llu\n", ctr(x, f->ctr));
	}
}

static void prom_head(const char *prefix, const char *name, const char *type, const char *help)
{
	printf("# HELP hixl_%s_%s %s\n# TYPE hixl_%s_%s %s\n", prefix, name, help, prefix, name,
	       type);
}

static void print_prometheus_rails(const struct eng_rec *r, uint32_t n);

/* One histogram's samples: _bucket{...,le=...} cumulative, _sum (s), _count. */
static void prom_hist(const char *prefix, const struct eng_rec *r, const char *peer,
		      const struct hixl_lat_hist *h)
{
	unsigned long long cum = 0;

	for (int b = 0; b < HIXL_LAT_BUCKETS; b++) {
		char le[32];

		cum += h->bucket[b];
		if (b == HIXL_LAT_BUCKETS - 1)
			snprintf(le, sizeof(le), "+Inf");
		else	/* 1e-06 ... 67.108864: seconds, as Prometheus's le */
			snprintf(le, sizeof(le), "%.9g", HIXL_LAT_BOUND_NS(b) / 1e9);
		printf("hixl_%s_transfer_duration_seconds_bucket", prefix);
		prom_labels_le(r, peer, NULL, NULL, le);
		printf(" %llu\n", cum);
	}
	printf("hixl_%s_transfer_duration_seconds_sum", prefix);
	prom_labels(r, peer, NULL, NULL);
	printf(" %.9f\n", h->sum_ns / 1e9);
	/* the buckets' sum, not h->count: a racing completion may be in one only */
	printf("hixl_%s_transfer_duration_seconds_count", prefix);
	prom_labels(r, peer, NULL, NULL);
	printf(" %llu\n", cum);
}

static void print_prometheus_lat(const struct eng_rec *r, uint32_t n)
{
	static const char help[] = "Durations of the TRANSFERs that succeeded, from the call "
				   "(or io_uring submission) to the result.";
	int have = 0;

	for (uint32_t i = 0; i < n; i++)
		have |= r[i].has_lat;
	if (!have)
		return;		/* a module without HIXL_FEAT_LATENCY */
	prom_head("engine", "transfer_duration_seconds", "histogram", help);
	for (uint32_t i = 0; i < n; i++)
		if (r[i].has_lat && !prom_skip_engine(&r[i]))
			prom_hist("engine", &r[i], NULL, &r[i].lat);
	prom_head("link", "transfer_duration_seconds", "histogram", help);
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t k = 0; r[i].has_lat && k < r[i].nlinks; k++) {
			char peer[HIXL_ENGINE_NAME_MAX];

			if (prom_skip_link(&r[i], &r[i].links[k]))
				continue;
			peer_name(&r[i].links[k], peer, sizeof(peer));
			prom_hist("link", &r[i], peer, &r[i].llat[k]);
		}
}

static void print_prometheus(const struct eng_rec *r, uint32_t n)
{
	const size_t nf = sizeof(families) / sizeof(families[0]);

	prom_head("engine", "links", "gauge", "Links of the engine.");
	for (uint32_t i = 0; i < n; i++) {
		if (prom_skip_engine(&r[i]))
			continue;
		printf("hixl_engine_links");
		prom_labels(&r[i], NULL, NULL, NULL);
		printf(" %u\n", r[i].e.nr_links);
	}
	prom_head("engine", "rails", "gauge", "RDMA devices (rails) of the engine.");
	for (uint32_t i = 0; i < n; i++) {
		if (prom_skip_engine(&r[i]))
			continue;
		printf("hixl_engine_rails");
		prom_labels(&r[i], NULL, NULL, NULL);
		printf(" %u\n", r[i].e.nr_rails);
	}
	prom_head("engine", "registered_bytes", "gauge",
		  "Bytes the engine has registered, host and device memory.");
	for (uint32_t i = 0; i < n; i++) {
		if (prom_skip_engine(&r[i]))
			continue;
		printf("hixl_engine_registered_bytes");
		prom_labels(&r[i], NULL, NULL, NULL);
		printf(" %llu\n",
		       (unsigned long long)(r[i].e.host_bytes + r[i].e.device_bytes));
	}
	for (size_t f = 0; f < nf; f++) {
		prom_head("engine", families[f].name, families[f].type, families[f].help);
		for (uint32_t i = 0; i < n; i++)
			if (!prom_skip_engine(&r[i]))
				prom_samples("engine", &families[f], &r[i], NULL, &r[i].e.xfer);
	}
	prom_head("link", "up", "gauge", "1 when the link is ready, else 0.");
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t k = 0; k < r[i].nlinks; k++) {
			char peer[HIXL_ENGINE_NAME_MAX];

			if (prom_skip_link(&r[i], &r[i].links[k]))
				continue;	/* a rail: hixl_link_rails_up below */
			peer_name(&r[i].links[k], peer, sizeof(peer));
			printf("hixl_link_up");
			prom_labels(&r[i], peer, NULL, NULL);
			printf(" %d\n", r[i].links[k].state == HIXL_LINK_STATE_READY);
		}
	for (size_t f = 0; f < nf; f++) {
		prom_head("link", families[f].name, families[f].type, families[f].help);
		for (uint32_t i = 0; i < n; i++)
			for (uint32_t k = 0; k < r[i].nlinks; k++) {
				char peer[HIXL_ENGINE_NAME_MAX];

				if (prom_skip_link(&r[i], &r[i].links[k]))
					continue;	/* a rail's counters: text and --json */
				peer_name(&r[i].links[k], peer, sizeof(peer));
				prom_samples("link", &families[f], &r[i], peer,
					     &r[i].links[k].xfer);
			}
	}
	prom_head("link", "rails_up", "gauge",
		  "Rails of the link (its own included) whose connection is ready.");
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t k = 0; k < r[i].nlinks; k++) {
			const struct hixl_link_stat *l = &r[i].links[k];
			char peer[HIXL_ENGINE_NAME_MAX];
			uint32_t up;

			if (prom_skip_link(&r[i], l))
				continue;
			up = l->state == HIXL_LINK_STATE_READY;
			for (uint32_t j = k + 1; j < r[i].nlinks && r[i].links[j].rail; j++)
				up += r[i].links[j].state == HIXL_LINK_STATE_READY;
			peer_name(l, peer, sizeof(peer));
			printf("hixl_link_rails_up");
			prom_labels(&r[i], peer, NULL, NULL);
			printf(" %u\n", up);
		}
	print_prometheus_lat(r, n);
	print_prometheus_rails(r, n);
}

/* An engine's rail: the engine's labels, then rail, device (and op, path). */
static void prom_rail_labels(const struct eng_rec *r, const struct hixl_rail_stat *rl,
			     const char *op, const char *path)
{
	printf("{");
	prom_engine_labels(r);
	printf(",rail=\"%u\",device=", rl->rail);
	prom_val(rl->device);
	if (op)
		printf(",op=\"%s\",path=\"%s\"", op, path);
	printf("}");
}

/* hixl_rail_*: every rail of every engine (a module with HIXL_FEAT_STATS_RAILS) */
static void print_prometheus_rails(const struct eng_rec *r, uint32_t n)
{
	static const struct { const char *name, *type, *help; int ctr; } fam[] = {
		{ "links_up", "gauge", "Links whose connection on the rail is ready.", -1 },
		{ "transfer_bytes_total", "counter",
		  "Bytes of direct transfer descriptors the rail moved, by op.", 0 },
		{ "work_completion_errors_total", "counter",
		  "Transfer work completions with an error status on the rail.", 9 },
		{ "failovers_total", "counter",
		  "Failovers of striped transfers away from the rail (it broke under them).", 20 },
		{ "repost_bytes_total", "counter",
		  "Bytes of striped transfers re-posted onto the rail after another broke.", 21 },
	};
	static const char *const ops[] = { "read", "write" };
	uint32_t have = 0;

	for (uint32_t i = 0; i < n; i++)
		have += prom_skip_engine(&r[i]) ? 0 : r[i].nrails;
	if (!have)
		return;
	prom_head("rail", "up", "gauge", "1 when the rail is up (device there, port active, "
		  "its connections up), else 0.");
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t k = 0; !prom_skip_engine(&r[i]) && k < r[i].nrails; k++) {
			printf("hixl_rail_up");
			prom_rail_labels(&r[i], &r[i].rails[k], NULL, NULL);
			printf(" %d\n", r[i].rails[k].state == HIXL_RAIL_STATE_UP);
		}
	for (size_t f = 0; f < sizeof(fam) / sizeof(fam[0]); f++) {
		prom_head("rail", fam[f].name, fam[f].type, fam[f].help);
		for (uint32_t i = 0; i < n; i++)
			for (uint32_t k = 0; !prom_skip_engine(&r[i]) && k < r[i].nrails; k++) {
				const struct hixl_rail_stat *rl = &r[i].rails[k];

				if (fam[f].ctr < 0) {
					printf("hixl_rail_%s", fam[f].name);
					prom_rail_labels(&r[i], rl, NULL, NULL);
					printf(" %u\n", rl->links_up);
				} else if (fam[f].ctr == 0) {	/* direct bytes, READ and WRITE */
					for (int o = 0; o < 2; o++) {
						printf("hixl_rail_%s", fam[f].name);
						prom_rail_labels(&r[i], rl, ops[o], "direct");
						printf(" %llu\n", ctr(&rl->xfer, 4 * o));
					}
				} else {
					printf("hixl_rail_%s", fam[f].name);
					prom_rail_labels(&r[i], rl, NULL, NULL);
					printf(" %llu\n", ctr(&rl->xfer, fam[f].ctr));
				}
			}
	}
}

int cmd_stats(int argc, char **argv)
{
	struct eng_rec *r = NULL;
	int json = 0, prom = 0;
	uint32_t n = 0;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (!strcmp(argv[i], "--prometheus"))
			prom = 1;
		else if (!strcmp(argv[i], "--ids"))
			prom_ids = 1;
		else
			return 2;
	}
	if ((json && prom) || (prom_ids && !prom))
		return 2;
	if (collect(&r, &n))
		return 1;
	/* engines of one name (in different network namespaces): told apart by engine */
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = i + 1; j < n; j++)
			if (strcmp(r[i].name, "-") && !strcmp(r[i].name, r[j].name))
				r[i].dup = r[j].dup = 1;
	if (json)
		print_json(r, n);
	else if (prom)
		print_prometheus(r, n);
	else
		print_text(r, n);
	for (uint32_t i = 0; i < n; i++) {
		free(r[i].links);
		free(r[i].llat);
	}
	free(r);
	return 0;
}
