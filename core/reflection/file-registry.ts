import { create, createFileRegistry, type DescFile, type FileRegistry } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";

/** A registry of the given files and everything they import (for reflection). */
export function fileRegistryOf(files: readonly DescFile[]): FileRegistry {
  const ordered: DescFile[] = [];
  const seen = new Set<string>();
  const visit = (f: DescFile) => {
    if (seen.has(f.name)) return;
    seen.add(f.name);
    for (const dep of f.dependencies) visit(dep);
    ordered.push(f);
  };
  for (const f of files) visit(f);
  return createFileRegistry(create(FileDescriptorSetSchema, { file: ordered.map((f) => f.proto) }));
}
