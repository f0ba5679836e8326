export { hostKind } from "../../core/host-kind.ts";
