/*
 * live.h — live mode: turns `pod/train-0`, `deploy/x`, `-l app=x`, `-A`
 * into workloads read from the API server, the way kubectl would find
 * them, and measures their CFS throttling.
 *
 * A Pod is read with its owner chain (ReplicaSet → Deployment, Job →
 * CronJob, PyTorchJob, TrainJob) so a Kubeflow pod is judged as a training
 * pod (its operator labels tell initializers and MPI launchers apart); a
 * TrainJob is read with the runtime it names and linted merged with it
 * (the engine joins them); env from ConfigMaps (envFrom, configMapKeyRef) is resolved by
 * reading those ConfigMaps, each once; Secrets are never read (their
 * values stay unknown).  A controller is linted as its template and
 * through its live Pods.  Throttling comes from the kubelet's cAdvisor
 * metrics through the API server's node proxy, once per node (twice with
 * a sampling window), or with --prometheus from Prometheus over --window
 * (at most the time each container has run); threads, CPU use and
 * throttling each container measured go into it, a figure out of range
 * as unknown with a note (livemeasure_int.h).
 * Without RBAC for nodes/proxy one note says so, which permission would
 * allow it and that --prometheus would measure, never a failure; a
 * Prometheus that fails is one error (the findings are still reported).
 *
 * Pods of one top owner with the same spec are linted as one workload
 * named after the owner, carrying their count (livepods_int.h); a Pod list
 * is processed as it arrives, item by item.
 *
 * Every problem (no configuration, unreachable server, 401, 403, 404,
 * timeout) becomes an engine error naming the context and the server.
 */
#ifndef CPL_LIVE_H
#define CPL_LIVE_H

#include <stdbool.h>
#include <stddef.h>

#include "kube/kubeclient.h"
#include "kube/kubeconfig.h"
#include "kube/prometheus.h"
#include "run/engine.h"
#include "util.h"

struct cpl_live_opts {
	struct cpl_kubeconfig_opts kube;	/* --kubeconfig, --context ... */
	bool all_namespaces;		/* -A */
	const char *selector;		/* -l */
	double sample_seconds;		/* --sample; 0: lifetime counters */
	struct cpl_prometheus_opts prometheus;	/* url NULL: cAdvisor */
	bool no_cadvisor;		/* url NULL: measure nothing (serve
					 * without --node-proxy) */
	double window_seconds;		/* --window (Prometheus); 0: 1h;
					 * a container that has run less is
					 * measured over the time it has run */
	bool run_timeout_set;		/* --live-timeout given: */
	double run_timeout_seconds;	/* the whole run (requests, exec
					 * plugins, Prometheus); 0: no limit
					 * (unset: 5 minutes) */
	cpl_kube_log_fn log;		/* -v: one line per request */
	void *log_ctx;
};

/*
 * Reads the targets (TYPE/NAME, a bare Pod name, or TYPE alone with -l or
 * -A; none at all with -l or -A means Pods) and adds their workloads to e.
 * Notes for the user (throttling not measured, and why) are appended to
 * notes, one per line.  Returns 0, or -1 when nothing could be read at all
 * (no configuration, server unreachable); errors are in the engine.
 */
int cpl_live_collect(struct cpl_engine *e, const char *const *targets,
		     size_t ntargets, const struct cpl_live_opts *o,
		     struct cpl_buf *notes);

/*
 * A session: the kubeconfig, its credentials and two clients (one for
 * GETs and LISTs, one for a watch's long request) kept between the
 * calls below, for serve's audit, which lists and then watches Pods and
 * judges one owner at a time.  Top owners are read once per session
 * (a Deployment's ReplicaSet is remembered, so a Pod event costs no read
 * once its owner is known).  Each call has the run's time limit
 * (--live-timeout, else 5 minutes) from when it starts; a watch has
 * none.  The session borrows o, which must outlive it.
 */
struct cpl_live_session;

/* 0, or -1 with err (no configuration, no credentials). */
int cpl_live_open(struct cpl_live_session **out, const struct cpl_live_opts *o,
		  struct cpl_error *err);
void cpl_live_close(struct cpl_live_session *s);	/* NULL-safe */

/* fn (on the session's thread) is asked before and during every read of
 * the session; true ends the read under way, and each later one, with
 * CPL_KUBE_STOPPED (cpl_kubeclient_set_cancel).  A watch has its own
 * stop (cpl_kube_watch_opts). */
void cpl_live_set_stop(struct cpl_live_session *s, bool (*fn)(void *ctx),
		       void *ctx);

/* Lists the Pods (o's namespace or every one, o's selector) item by
 * item to fn; *rv is set to the list's resourceVersion (caller frees).
 * 0, or a CPL_KUBE_* failure with err set. */
int cpl_live_list_pods(struct cpl_live_session *s, cpl_kube_item_fn fn,
		       void *ctx, char **rv, struct cpl_error *err);

/* Watches the same Pods (cpl_kubeclient_watch, wo's selector replaced
 * by o's). */
int cpl_live_watch_pods(struct cpl_live_session *s,
			const struct cpl_kube_watch_opts *wo,
			cpl_kube_event_fn fn, void *ctx,
			struct cpl_error *err);

/*
 * The name of pod's top owner as live objects are named
 * ("deployment/ns/x", "pod/ns/name" for a Pod without owner; caller
 * frees), and in *spec_key its grouping key (livepods_int.h; NULL for a Pod
 * without owner, which is a group of its own).  NULL when pod has no
 * name.
 */
char *cpl_live_pod_keys(struct cpl_live_session *s, const json_t *pod,
			char **spec_key);

/* Judges pods (the Pods of one owner; each may be changed) into e as
 * cpl_live_collect would: grouped, named after the owner, measured.
 * Without --sample, each node's cAdvisor metrics are read once per
 * cycle of the session, for every judgement in it. */
void cpl_live_judge_pods(struct cpl_live_session *s, struct cpl_engine *e,
			 json_t *const *pods, size_t n, struct cpl_buf *notes);

/* Begins a new cycle of judgements: the nodes' metrics the last one
 * read are let go, and read again when next needed. */
void cpl_live_new_cycle(struct cpl_live_session *s);

/* Whether word names a resource type live mode knows ("pod", "deploy",
 * "deployment.apps", "pytorchjob" ...). */
bool cpl_live_is_type(const char *word);

/* The name of the i-th resource type live mode knows ("pod",
 * "deployment" ...), or NULL past the last: for shell completion. */
const char *cpl_live_type_label(size_t i);

/*
 * The names of the objects of type (a resource type, or "namespace") in
 * the namespace o names (every one with -A), sorted, for shell
 * completion: a request timeout of 5 s unless o gives one.  *names is a
 * NULL-terminated array the caller frees (each name, then the array).
 * 0, or -1 with err set.
 */
int cpl_live_names(char ***names, size_t *n, const char *type,
		   const struct cpl_live_opts *o, struct cpl_error *err);

/*
 * The finding as reported: f itself, or, when f is on a live workload
 * that stands for several Pods of one owner, a shallow copy in *view with
 * pods set and a message that says how many ("... (100 Pods)") and, for a
 * measured finding, which Pod's figures it gives (the most throttled).
 * *msg is that message (caller frees after reporting; NULL for f).
 */
const struct cpl_finding *cpl_live_finding_view(struct cpl_finding *view,
						char **msg,
						const struct cpl_finding *f);

/* Parses a --sample duration ("30s", "1m", "500ms", "10") into seconds;
 * -1 on anything else. */
int cpl_live_parse_duration(double *seconds, const char *text);

#endif
