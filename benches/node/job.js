// The job of the core's benchmarks (benches/core.rs): 1,000 workers, 50 PS, a chief and an
// evaluator; it renders to 2,106 objects, 22.8 MB of JSON. Used by benches/node/render.js and by the
// browser preview's benchmark (benches/www/paste.js).

const spec = (replicas, cpu, memory) => ({
  replicas,
  restartCount: 3,
  template: {
    spec: {
      restartPolicy: "Never",
      containers: [{ name: "main", image: "registry.example.com/ads/deepctr:2.1", command: ["python", "-m", "deepctr.train"], resources: { requests: { cpu, memory } } }],
    },
  },
});

/** The benchmark job, named `name`. */
export function bigJob(name = "deepctr") {
  return {
    apiVersion: "elastic.iml.github.io/v1alpha1",
    kind: "ElasticJob",
    metadata: { name, namespace: "ads", uid: "6f0c3a52-8e1d-4b8e-9d0a-2f1e7c9b5a11", labels: { team: "ads" } },
    spec: {
      distributionStrategy: "ParameterServerStrategy",
      replicaSpecs: { ps: spec(50, "4", "16Gi"), worker: spec(1000, "2", "4Gi"), chief: spec(1, "2", "4Gi"), evaluator: spec(1, "2", "4Gi") },
    },
  };
}
