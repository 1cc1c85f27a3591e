import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { promtool, promtoolSkipReason } from "../helpers/prometheus.ts";

// docs/prometheus/alerts.yml, checked by promtool and run against made-up series with `promtool test
// rules`: the rules parse, and the subtle ones fire when they should and not otherwise.

const RULES = fileURLToPath(new URL("../../docs/prometheus/alerts.yml", import.meta.url));

const CURATE_MISSED = (age: string) => `
          - exp_labels: { severity: page, instance: a }
            exp_annotations:
              summary: "No successful \`picks curate\` for over 30 hours"
              description: "The last successful daily run on a ended ${age} ago. Readers are not getting today's picks: look at \`journalctl -u research-picks-curate\` and run it again."`;

// Time 0 is Thursday 1970-01-01 00:00 UTC; the last success ends at 01:00 and none follows.
const UNIT_TESTS = `
rule_files:
  - ${RULES}
evaluation_interval: 1m
tests:
  - interval: 1h
    input_series:
      - series: 'picks_run_last_success_timestamp_seconds{command="curate",instance="a"}'
        values: '3600x120'
    alert_rule_test:
      - eval_time: 30h
        alertname: PicksCurateMissed
        exp_alerts: []
      - eval_time: 32h
        alertname: PicksCurateMissed
        exp_alerts:${CURATE_MISSED("1d 7h 0m 0s")}
      - eval_time: 56h
        alertname: PicksCurateMissed
        exp_alerts: []
      - eval_time: 97h
        alertname: PicksCurateMissed
        exp_alerts: []
      - eval_time: 100h
        alertname: PicksCurateMissed
        exp_alerts:${CURATE_MISSED("4d 3h 0m 0s")}
  - interval: 1m
    input_series:
      - series: 'http_server_request_duration_seconds_count{job="picks",route="/v1/papers",method="GET",status_class="2xx"}'
        values: '0+1000x40'
      - series: 'http_server_request_duration_seconds_count{job="picks",route="/v1/papers",method="GET",status_class="5xx"}'
        values: '0+20x40'
      - series: 'picks_circuit_state{job="picks",instance="a",upstream="llm.example"}'
        values: '0 2x30'
    alert_rule_test:
      - eval_time: 8m
        alertname: PicksServerErrors
        exp_alerts: []
      - eval_time: 20m
        alertname: PicksServerErrors
        exp_alerts:
          - exp_labels: { severity: page }
            exp_annotations:
              summary: "More than 1 % of API answers are 5xx"
              description: "1.961% of answers were server errors over the last 5 minutes. The servers' stderr has one JSON line per failure."
      - eval_time: 9m
        alertname: PicksCircuitOpen
        exp_alerts: []
      - eval_time: 12m
        alertname: PicksCircuitOpen
        exp_alerts:
          - exp_labels: { severity: ticket, job: picks, instance: a, upstream: llm.example }
            exp_annotations:
              summary: "The circuit to llm.example has been open for 10 minutes"
              description: "a fails calls to llm.example at once: the upstream is down or refusing this server. The semantic review answers \`model_unavailable\` meanwhile."
`;

const skip = promtoolSkipReason();
if (skip) console.warn(skip);

describe.skipIf(skip)("docs/prometheus/alerts.yml", () => {
  it("passes `promtool check rules`", async () => {
    const checked = await promtool(["check", "rules", RULES]);
    expect(checked.output).toContain("SUCCESS");
    expect(checked.code).toBe(0);
  });

  it("fires on a missed weekday run, a 5xx rate over 1 % and an open circuit, and not before", async () => {
    const dir = await mkdtemp(join(tmpdir(), "picks-alert-rules-"));
    const file = join(dir, "alerts.test.yml");
    await writeFile(file, UNIT_TESTS);
    const tested = await promtool(["test", "rules", file]);
    expect(tested.output).toContain("SUCCESS");
    expect(tested.code).toBe(0);
  });
});
