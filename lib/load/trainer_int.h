/*
 * trainer_int.h — the TrainJob kind's own fields (Kubeflow Trainer v2),
 * private to the load wing: what trainer.c keeps on a TrainJob's and a
 * runtime's workloads to join them once every file is read
 * (cpl_trainer_join), because the YAML is gone by then.  The rest of the
 * program sees only that a workload has them (w->trainer) and the
 * framework its runtime names (w->ml_policy, model/workload.h).
 */
#ifndef CPL_TRAINER_INT_H
#define CPL_TRAINER_INT_H

#include <stdbool.h>

#include "model/workload.h"

/* The step of a TrainJob a runtime's replicated job runs (its
 * trainer.kubeflow.org/trainjob-ancestor-step label). */
enum cpl_tstep {
	CPL_TSTEP_OTHER,	/* MPI node workers, anything else */
	CPL_TSTEP_TRAINER,	/* its "node" container is what the TrainJob's
				 * trainer overrides */
	CPL_TSTEP_INIT,		/* dataset-initializer, model-initializer */
};

/*
 * On a TrainJob: its runtimeRef and which trainer fields it writes
 * (their values are in its one "node" container).  On each replicated
 * job of a runtime: the step and its mlPolicy's numbers (the policy
 * itself is the workload's ml_policy).  Owned by the workload, which
 * frees and copies it through trainer.c's struct cpl_own_ops.
 */
struct cpl_trainer {
	/* A TrainJob. */
	char *ref_kind;		/* ClusterTrainingRuntime (the default) or
				 * TrainingRuntime; NULL: another API group */
	char *ref_name;		/* NULL: no runtimeRef.name */
	bool set_image;
	bool set_command;
	bool set_args;
	bool set_rpn;		/* resourcesPerNode written */
	bool set_resources;	/* ... with limits or requests */
	bool set_limits;	/* resourcesPerNode.limits written */
	bool set_requests;
	bool gpu_limits;	/* a resource named *gpu* in limits */
	bool gpu_requests;
	bool set_nodes;
	long nodes;		/* numNodes */
	struct cpl_pos nodes_pos;
	bool set_nproc;
	struct cpl_word nproc;	/* numProcPerNode */
	/* A runtime's replicated job. */
	enum cpl_tstep step;
	bool set_policy_nodes;
	long policy_nodes;	/* mlPolicy.numNodes */
	bool set_policy_nproc;
	struct cpl_word policy_nproc;	/* mlPolicy.torch|mpi.numProcPerNode */
	bool launcher_as_node;	/* mlPolicy.mpi.runLauncherAsNode */
};

#endif
