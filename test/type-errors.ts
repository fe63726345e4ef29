import path from 'node:path';
import ts from 'typescript';

/**
 * The type errors of a snippet of TypeScript, compiled with the repository's own options
 * (tsconfig.json) as a file of `test/`, so that it imports what the tests import. For the tests of
 * what must not compile: each asserts the errors a snippet gives, so it fails when a type that
 * should refuse something takes it (an `@ts-expect-error` proves that only to the typecheck).
 */
const ROOT = path.join(__dirname, '..');

/** The repository's compiler options, read once. */
const OPTIONS: ts.CompilerOptions = (() => {
  const file = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile.bind(ts.sys));
  return {
    ...ts.parseJsonConfigFileContent(file.config, ts.sys, ROOT).options,
    noEmit: true,
    // The snippet's own locals are its business.
    noUnusedLocals: false,
  };
})();

export function typeErrors(source: string): string[] {
  const name = path.join(ROOT, 'test', '__snippet__.ts');
  const compilerOptions = OPTIONS;
  const host = ts.createCompilerHost(compilerOptions);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (file, language, ...rest) =>
    path.resolve(file) === name ? ts.createSourceFile(file, source, language) : read(file, language, ...rest);
  host.fileExists = (
    (exists) => (file: string) =>
      path.resolve(file) === name || exists(file)
  )(host.fileExists.bind(host));
  const program = ts.createProgram([name], compilerOptions, host);
  const snippet = program.getSourceFile(name)!;
  return [...program.getSyntacticDiagnostics(snippet), ...program.getSemanticDiagnostics(snippet)].map(
    (d) => {
      const line = d.start === undefined ? 0 : snippet.getLineAndCharacterOfPosition(d.start).line + 1;
      return `line ${line}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    },
  );
}
