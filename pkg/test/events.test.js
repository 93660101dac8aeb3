// Events on the jobs (controller/events.js): one Event an object and reason, its count raised by a
// merge patch when it comes again (client-go's EventCorrelator), a new one when the old has expired.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ApiError } from "../controller/adapter.js";
import { EventRecorder } from "../controller/events.js";
import { Logger } from "../controller/log.js";

const job = { apiVersion: "elastic.iml.github.io/v1alpha1", kind: "ElasticJob", metadata: { name: "mnist", namespace: "ns", uid: "u-1", resourceVersion: "3" } };

test("the same reason again is the earlier event counted up, not a new event; an expired one is made again", async () => {
  const calls = [];
  let expired = false;
  const adapter = {
    create: async (kind, event) => calls.push(["create", event.reason, event.count, event.involvedObject.uid]),
    patch: async (kind, ns, name, body) => {
      if (expired) {
        throw new ApiError("patch", 404, { reason: "NotFound" });
      }
      calls.push(["patch", body.count, body.message]);
    },
  };
  const recorder = new EventRecorder({ adapter, log: new Logger({ write: () => true }, { level: "error" }), clock: () => new Date("2026-03-01T10:00:00Z") });
  await recorder.record(job, "Warning", "FailedCreate", "exceeded quota", 4);
  await recorder.record(job, "Warning", "FailedCreate", "exceeded quota again", 1);
  await recorder.record(job, "Normal", "ScalePlanTakenUp", "took up scale plan p-1");
  expired = true;
  await recorder.record(job, "Warning", "FailedCreate", "exceeded quota", 2);
  assert.deepEqual(calls, [
    ["create", "FailedCreate", 4, "u-1"],
    ["patch", 5, "exceeded quota again"],
    ["create", "ScalePlanTakenUp", 1, "u-1"],
    ["create", "FailedCreate", 2, "u-1"],
  ]);
});

test("an event that cannot be written is logged, never thrown", async () => {
  const lines = [];
  const recorder = new EventRecorder({
    adapter: { create: async () => Promise.reject(new ApiError("create", 403, { reason: "Forbidden", message: "no" })) },
    log: new Logger({ write: (t) => lines.push(JSON.parse(t)) }),
  });
  await recorder.record(job, "Warning", "FailedCreate", "x");
  assert.equal(lines[0].msg, "could not record the event");
  assert.equal(lines[0].error.status, 403);
});
