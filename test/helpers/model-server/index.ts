/** The scripted model server's public surface: tests import from here only. */
export {
  startModelServer,
  type Failure,
  type LoggedRequest,
  type ModelServer,
  type ModelServerOptions,
} from "./server.js";
export type { Script, ScriptStep } from "./script.js";
export type { TextDialect, TextStepContext } from "./text-dialects.js";
export type { ModelApi, Reply } from "./types.js";
export { COUNTED_INPUT_TOKENS, MAIN_USAGE, SIDE_USAGE, type Usage } from "./usage.js";
export { EDIT_INSTRUCTION, FINAL_TEXT, SIDE_TEXT } from "./plan.js";
export { parseSse, type ParsedSseEvent } from "./sse.js";
export { findWorkTree } from "./work-tree.js";
export { PLACEHOLDER_STRING, sampleFromSchema } from "./json-schema.js";
export {
  readAnthropic,
  readChat,
  readGemini,
  readResponses,
  type CollectedCall,
  type CollectedReply,
} from "./replies.js";
export {
  claudeBody,
  codexBody,
  codexHeaders,
  geminiBody,
  loadShape,
  opencodeBody,
  qwenBody,
  type PastCall,
  type RequestShape,
  type Turn,
} from "./requests.js";
