/** routekit: route patterns, a router and path building, without dependencies. */
export { compilePattern, parsePattern, specificity, PatternError } from "./pattern.ts";
export type { CompiledPattern, Segment } from "./pattern.ts";
export { decodeParam, paramsFromMatch, MalformedPathError } from "./params.ts";
export type { Params } from "./params.ts";
export { buildPath, encodeParam, MissingParamError } from "./build.ts";
export type { BuildParams } from "./build.ts";
export { Router, DuplicateRouteError } from "./router.ts";
export type { LookupResult, Method, Route } from "./router.ts";
