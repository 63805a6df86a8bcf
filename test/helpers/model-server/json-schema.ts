/**
 * Builds a value that satisfies a JSON schema, for side calls that ask for JSON (Claude's title,
 * Gemini's router) and for placeholder tool arguments. Deliberately plain: the first enum value,
 * numbers at their minimum (or 1), non-empty strings, every declared property.
 */
import type { JsonSchema } from "./types.js";
import { isRecord } from "./values.js";

/** The string put where a schema asks for any string. */
export const PLACEHOLDER_STRING = "Scripted";

/** A schema's type as one lower-case name (Gemini's OpenAPI schemas say `STRING`, `INTEGER`). */
function typeOf(schema: JsonSchema): string | undefined {
  const type = schema.type;
  if (typeof type === "string") return type.toLowerCase();
  if (Array.isArray(type)) {
    const names = type
      .filter((t): t is string => typeof t === "string")
      .map((t) => t.toLowerCase());
    return names.find((t) => t !== "null") ?? names[0];
  }
  if (isRecord(schema.properties)) return "object";
  if (isRecord(schema.items)) return "array";
  return undefined;
}

function sampleNumber(schema: JsonSchema, integer: boolean): number {
  let value = 1;
  if (typeof schema.minimum === "number") value = schema.minimum;
  else if (typeof schema.exclusiveMinimum === "number") {
    value = integer ? Math.floor(schema.exclusiveMinimum) + 1 : schema.exclusiveMinimum + 1;
  }
  if (typeof schema.maximum === "number" && value > schema.maximum) value = schema.maximum;
  return integer ? Math.ceil(value) : value;
}

/** A value of the schema's type; `depth` stops runaway recursive schemas. */
export function sampleFromSchema(schema: JsonSchema, depth = 0): unknown {
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  for (const key of ["anyOf", "oneOf", "allOf"] as const) {
    const options = schema[key];
    if (Array.isArray(options)) {
      const first = options.find((o): o is JsonSchema => isRecord(o) && o.type !== "null");
      if (first) return sampleFromSchema(first, depth + 1);
    }
  }
  if (depth > 8) return null;
  switch (typeOf(schema)) {
    case "object": {
      const properties = isRecord(schema.properties) ? schema.properties : {};
      const result: Record<string, unknown> = {};
      for (const [name, property] of Object.entries(properties)) {
        result[name] = isRecord(property)
          ? sampleFromSchema(property, depth + 1)
          : PLACEHOLDER_STRING;
      }
      return result;
    }
    case "array": {
      const count = typeof schema.minItems === "number" ? schema.minItems : 0;
      const items = isRecord(schema.items) ? schema.items : {};
      return Array.from({ length: count }, () => sampleFromSchema(items, depth + 1));
    }
    case "integer":
      return sampleNumber(schema, true);
    case "number":
      return sampleNumber(schema, false);
    case "boolean":
      return false;
    case "null":
      return null;
    default: {
      const minLength = typeof schema.minLength === "number" ? schema.minLength : 0;
      return PLACEHOLDER_STRING.padEnd(minLength, "!");
    }
  }
}
