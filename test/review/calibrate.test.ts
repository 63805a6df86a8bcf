import { describe, expect, it } from "vitest";
import reference from "../fixtures/review/kappa-reference.json" with { type: "json" };
import {
  buildCalibration,
  currentReviews,
  judgeTask,
  renderCalibrationMarkdown,
  REVIEW_SCHEMA_VERSION,
  type Review,
} from "../../src/review/index.js";

const TASKS = Array.from({ length: 10 }, (_, i) => `t${String(i + 1).padStart(2, "0")}`);

let clock = 0;
function review(task: string, reviewer: string, answers: Partial<Review> = {}): Review {
  clock++;
  return {
    schemaVersion: REVIEW_SCHEMA_VERSION,
    task,
    reviewer,
    clarity: "clear",
    tests: "adequate",
    alternatives: 0,
    difficulty: 2,
    notes: "",
    reviewedAt: new Date(Date.UTC(2024, 0, 1, 0, 0, clock)).toISOString(),
    suiteVersion: "1",
    ...answers,
  };
}

type Person = (typeof reference.scenario)["alice"];

function reviewsOf(name: string, person: Person): Review[] {
  return person.clarity.map((clarity, i) =>
    review(TASKS[i] ?? "", name, {
      clarity: clarity as Review["clarity"],
      tests: person.tests[i] as Review["tests"],
      alternatives: person.alternatives[i] ?? 0,
      difficulty: person.difficulty[i] ?? 1,
      notes: person.tests[i] === "weak" ? `${name} thinks a wrong fix passes` : "",
    }),
  );
}

/** The reference scenario: alice reviews all ten tasks, bob the first eight after a first try at t01. */
const scenario: Review[] = [
  review("t01", "bob", { clarity: "insufficient", tests: "flaky", difficulty: 5 }),
  ...reviewsOf("alice", reference.scenario.alice),
  ...reviewsOf("bob", reference.scenario.bob),
];

describe("current reviews and the validity rule", () => {
  it("keeps each reviewer's latest review of a task, by file order", () => {
    const current = currentReviews(scenario);
    expect(current.get("t01")?.map((r) => [r.reviewer, r.clarity])).toEqual([
      ["alice", "clear"],
      ["bob", "clear"],
    ]);
    // A later line wins even when its clock is behind.
    const skewed = [
      review("t01", "bob"),
      { ...review("t01", "bob", { tests: "weak" }), reviewedAt: "2000-01-01T00:00:00.000Z" },
    ];
    expect(currentReviews(skewed).get("t01")?.[0]?.tests).toBe("weak");
  });

  it("calls a task valid only when every reviewer says clear and adequate", () => {
    expect(judgeTask([])).toEqual({ status: "unreviewed", reasons: [] });
    expect(judgeTask([review("t", "a"), review("t", "b")])).toEqual({
      status: "valid",
      reasons: [],
    });
    expect(
      judgeTask([review("t", "a"), review("t", "b", { clarity: "ambiguous", tests: "weak" })]),
    ).toEqual({ status: "flagged", reasons: ["b: clarity ambiguous, tests weak"] });
  });
});

describe("the calibration of a suite", () => {
  const calibration = buildCalibration({ name: "demo", taskIds: TASKS }, scenario);

  it("counts tasks, reviewers and superseded reviews", () => {
    expect(calibration).toMatchObject({
      suite: "demo",
      tasks: 10,
      reviewedTasks: 10,
      unreviewed: [],
      reviewers: ["alice", "bob"],
      currentReviews: 18,
      supersededReviews: 1,
      unknownTasks: [],
    });
  });

  it("gives the validity rate over reviewed tasks with a Wilson interval", () => {
    expect(calibration.validity).toMatchObject({ valid: 3, reviewed: 10, rate: 0.3 });
    // statsmodels proportion_confint(3, 10, method="wilson"), as in test/fixtures/stats.
    expect(calibration.validity.low).toBeCloseTo(0.10779126740630093, 12);
    expect(calibration.validity.high).toBeCloseTo(0.6032218525388546, 12);
  });

  it("lists the flagged tasks with each reviewer's reasons and notes", () => {
    expect(calibration.flagged.map((task) => task.task)).toEqual([
      "t02",
      "t03",
      "t04",
      "t05",
      "t06",
      "t08",
      "t10",
    ]);
    const byTask = Object.fromEntries(calibration.flagged.map((task) => [task.task, task]));
    expect(byTask.t05?.reasons).toEqual([
      "alice: clarity insufficient",
      "bob: clarity insufficient",
    ]);
    expect(byTask.t06?.reasons).toEqual([
      "alice: tests flaky",
      "bob: clarity ambiguous, tests flaky",
    ]);
    expect(byTask.t04?.notes).toEqual(["bob: bob thinks a wrong fix passes"]);
  });

  it("takes each task's difficulty as its reviewers' mean", () => {
    // Per-task means 1.5 2 3 2.5 4.5 4 2.5 2.5 1 2: mean 2.55; rounded half up 2 2 3 3 5 4 3 3 1 2.
    expect(calibration.difficulty.mean).toBeCloseTo(2.55, 12);
    expect(calibration.difficulty.levels).toEqual([
      { level: 1, tasks: 1, reviews: 2 },
      { level: 2, tasks: 3, reviews: 7 },
      { level: 3, tasks: 4, reviews: 5 },
      { level: 4, tasks: 1, reviews: 3 },
      { level: 5, tasks: 1, reviews: 1 },
    ]);
  });

  it("takes each task's alternative fixes as the most any reviewer counted", () => {
    // Per task: 0 1 1 2 0 0 4 1 0 0.
    expect(calibration.alternatives).toEqual({
      mean: 0.9,
      tasksWithAlternatives: 5,
      counts: [
        { alternatives: "0", tasks: 5 },
        { alternatives: "1", tasks: 3 },
        { alternatives: "2", tasks: 1 },
        { alternatives: "3+", tasks: 1 },
      ],
    });
  });

  it("measures agreement with Cohen's kappa, as sklearn computes it", () => {
    expect(calibration.agreement).toHaveLength(1);
    const pair = calibration.agreement[0]!;
    expect(pair.reviewers).toEqual(["alice", "bob"]);
    expect(pair.tasks).toBe(8);
    for (const key of ["clarity", "tests", "validity"] as const) {
      expect(pair[key].kappa).toBeCloseTo(reference.scenario[key].kappa, 12);
      expect(pair[key].observed).toBeCloseTo(reference.scenario[key].observed, 12);
      expect(pair[key].standardError).toBeCloseTo(reference.scenario[key].standardError, 12);
    }
    expect(pair.validityInWords).toBe("fair");
  });

  it("keeps reviews of tasks the suite no longer has out of every figure", () => {
    const result = buildCalibration({ name: "demo", taskIds: ["t01", "t02"] }, [
      review("t01", "alice"),
      review("gone", "alice", { clarity: "insufficient" }),
    ]);
    expect(result).toMatchObject({
      reviewedTasks: 1,
      unreviewed: ["t02"],
      unknownTasks: ["gone"],
      currentReviews: 1,
      supersededReviews: 0,
      validity: { valid: 1, reviewed: 1, rate: 1 },
    });
  });

  it("points out current reviews made of another version of the suite", () => {
    const result = buildCalibration({ name: "demo", taskIds: ["t01", "t02"], version: "2" }, [
      review("t01", "alice", { suiteVersion: "1" }),
      review("t01", "alice", { suiteVersion: "2" }),
      review("t02", "bob", { suiteVersion: "1" }),
    ]);
    expect(result.staleReviews).toEqual([{ task: "t02", reviewer: "bob", suiteVersion: "1" }]);
    expect(renderCalibrationMarkdown(result)).toContain(
      "1 current review(s) were made of another version of the suite, and the task may have changed since: t02 (bob, version 1).",
    );
  });

  it("compares every pair of reviewers apart when a task has three", () => {
    const result = buildCalibration({ name: "demo", taskIds: TASKS }, [
      ...scenario,
      review("t01", "carol"),
      review("t02", "carol", { clarity: "ambiguous" }),
    ]);
    expect(result.agreement.map((pair) => [pair.reviewers.join("&"), pair.tasks])).toEqual([
      ["alice&bob", 8],
      ["alice&carol", 2],
      ["bob&carol", 2],
    ]);
    // alice and carol: both t01 valid, both t02 flagged (for different reasons).
    expect(result.agreement[1]?.validity.kappa).toBe(1);
    expect(result.agreement[1]?.validity.low).toBeNull();
  });

  it("renders the figures as Markdown", () => {
    const text = renderCalibrationMarkdown(calibration);
    console.log(text);
    expect(text).toContain(
      "**3 of 10 reviewed tasks are valid: 30.0% [10.8, 60.3] (95% Wilson interval).**",
    );
    expect(text).toMatch(/\| t06 +\| alice: tests flaky; bob: clarity ambiguous, tests flaky +\|/);
    expect(text).toContain("Mean 2.55 over 10 tasks");
    expect(text).toContain("5 of 10 tasks have a reasonable fix other than the gold patch");
    expect(text).toMatch(
      /\| alice & bob \|\s+8 \| 0\.53, 75\.0% agree \| 0\.23, 62\.5% agree \| 0\.25, 62\.5% agree \| fair/,
    );
  });

  it("says so when nothing is reviewed", () => {
    const empty = buildCalibration({ name: "demo", taskIds: TASKS }, []);
    expect(empty.validity.rate).toBeNull();
    expect(empty.difficulty.mean).toBeNull();
    expect(renderCalibrationMarkdown(empty)).toContain(
      "No task is reviewed yet: `lab review --suite demo` records reviews.",
    );
  });
});
