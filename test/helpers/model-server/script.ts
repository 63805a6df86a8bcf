/**
 * Scripts the scripted model server plays. A script is chosen by a substring of the first user
 * message (the task's prompt); the number of tool results already in a request says which step
 * comes next, so the server keeps no state between requests.
 */

/** One action the model asks the agent to take. Paths are relative to the agent's work tree. */
export type ScriptStep =
  | { readonly kind: "write"; readonly path: string; readonly content: string }
  | { readonly kind: "shell"; readonly command: string }
  | { readonly kind: "read"; readonly path: string }
  | {
      readonly kind: "edit";
      readonly path: string;
      readonly oldString: string;
      readonly newString: string;
    }
  | { readonly kind: "finish"; readonly text: string };

/** A scenario: the steps played to a conversation whose prompt contains `match`. */
export interface Script {
  /** A substring of the first user message that selects this script. */
  readonly match: string;
  /** Played in order; after the last one (or past the end) the server answers with text. */
  readonly steps: readonly ScriptStep[];
}
