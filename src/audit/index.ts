export { auditSuite, type AuditSuiteOptions } from "./audit-suite.js";
export { auditTask, type AuditTaskOptions } from "./audit-task.js";
