package dev.workqueue.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every {@code ```java} block of the README compiles against the toolkit as built, with the
 * imports it shows and no others, so that a user who pastes it has what it needs:
 *
 * <ul>
 *   <li>A snippet that declares a class (or a record, interface or enum) is compiled as it is,
 *       a source file of its own.
 *   <li>Any other snippet is a run of statements: it is put in a method of a class of its own,
 *       beside the names a snippet uses without declaring them (the user's own code: {@code
 *       reconcile}, {@code meterRegistry}...). A line {@code ...} is left out and {@code (...)}
 *       stands for an argument of any type.
 *   <li>A snippet that is deliberately partial (it continues another, or leaves its imports to
 *       the reader) says so on its first line, a comment that starts with {@code // fragment};
 *       only such a snippet gets the toolkit's packages imported for it.
 * </ul>
 *
 * A snippet that calls something the toolkit does not have, or lacks an import, fails here.
 */
class ReadmeSnippetsTest {
  /** The first line of a deliberately partial snippet starts with this. */
  static final String FRAGMENT = "// fragment";

  /** What a fragment is compiled with: the toolkit's packages and the JDK's usual ones. */
  private static final String FRAGMENT_IMPORTS = String.join("\n",
      "import dev.workqueue.*;",
      "import dev.workqueue.clock.*;",
      "import dev.workqueue.controller.*;",
      "import dev.workqueue.ratelimit.*;",
      "import dev.workqueue.scheduling.*;",
      "import dev.workqueue.metrics.micrometer.*;",
      "import java.time.*;",
      "import java.util.*;");

  /** What the snippets leave to the user; fully qualified, so that it imports nothing. */
  private static final String USER_CODE = String.join("\n",
      "  static <X> X any() { return null; }",
      "  void syncConfigMap(String key) {}",
      "  void reconcile(String key) throws Exception {}",
      "  String namespace;",
      "  String name;",
      "  io.micrometer.core.instrument.MeterRegistry meterRegistry;",
      "  dev.workqueue.ratelimit.RateLimiter<String> limiter;",
      "  record Job(String id) {}");

  private static final Pattern TYPE = Pattern.compile(
      "(?m)^(?:public |final |abstract )*(?:class|record|interface|enum) (\\w+)");

  static List<String> snippets() throws IOException {
    List<String> blocks = new ArrayList<>();
    StringBuilder block = null;
    for (String line : Files.readAllLines(readme())) {
      if (block == null && line.trim().equals("```java")) {
        block = new StringBuilder();
      } else if (block != null && line.trim().equals("```")) {
        blocks.add(block.toString());
        block = null;
      } else if (block != null) {
        block.append(line).append('\n');
      }
    }
    return blocks;
  }

  private static Path readme() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.exists(dir.resolve("README.md")) && Files.exists(dir.resolve("examples"))) {
        return dir.resolve("README.md"); // the repository's, not a module's
      }
    }
    throw new AssertionError("no README.md above " + Path.of("").toAbsolutePath());
  }

  @TestFactory
  Stream<DynamicTest> everyJavaSnippetCompiles_withTheImportsItShows() throws IOException {
    List<String> snippets = snippets();
    assertTrue(snippets.size() >= 6, "the README's java snippets, found " + snippets.size());
    List<DynamicTest> tests = new ArrayList<>();
    for (int i = 0; i < snippets.size(); i++) {
      String snippet = snippets.get(i);
      String name = "Snippet" + (i + 1);
      String first = snippet.lines().findFirst().orElse("").trim();
      tests.add(dynamicTest(name + ": " + first, () -> assertEquals("", compile(name, snippet),
          "README snippet does not compile:\n" + snippet)));
    }
    return tests.stream();
  }

  @Test
  void aSnippetWithoutAnImportItNeeds_fails_whetherAClassOrStatements() {
    String main = String.join("\n",
        "import java.time.Duration;",
        "",
        "public class App {",
        "  public static void main(String[] args) {",
        "    Controller<String> c = null;",
        "  }",
        "}");
    assertTrue(compile("Snippet", main).contains("cannot find symbol"), "a class");
    assertEquals("", compile("Snippet",
        "import dev.workqueue.controller.Controller;\n" + main), "with the import");
    String statements = "Optional<String> next = java.util.Optional.empty();\n";
    assertTrue(compile("Snippet", statements).contains("cannot find symbol"), "statements");
    assertEquals("", compile("Snippet", "import java.util.Optional;\n" + statements));
    assertEquals("", compile("Snippet", FRAGMENT + ": continues the above\n" + statements),
        "a fragment gets the usual imports");
  }

  /** The compiler's errors for {@code snippet}; empty if it compiles. */
  static String compile(String className, String snippet) {
    boolean fragment = snippet.stripLeading().startsWith(FRAGMENT);
    Matcher type = TYPE.matcher(snippet);
    String source;
    if (type.find() && !fragment) {
      className = type.group(1);
      source = snippet;
    } else {
      String imports = snippet.lines()
          .filter(l -> l.startsWith("import "))
          .collect(Collectors.joining("\n"));
      String body = snippet.lines()
          .filter(l -> !l.trim().equals("...") && !l.startsWith("import "))
          .map(l -> l.replace("(...)", "(any())"))
          .map(l -> "    " + l)
          .collect(Collectors.joining("\n"));
      source = (fragment ? FRAGMENT_IMPORTS + "\n" : "") + imports + "\n\nclass " + className
          + " {\n" + USER_CODE + "\n\n  @SuppressWarnings(\"unused\")\n"
          + "  void run() throws Exception {\n" + body + "\n  }\n}\n";
    }
    String text = source;
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    JavaFileObject file = new SimpleJavaFileObject(
        URI.create("string:///" + className + ".java"), JavaFileObject.Kind.SOURCE) {
      @Override
      public CharSequence getCharContent(boolean ignoreEncodingErrors) {
        return text;
      }
    };
    List<String> options = List.of("-proc:none", "-d", tempDir(),
        "-classpath", System.getProperty("java.class.path"));
    boolean ok = javac.getTask(null, null, diagnostics, options, null, List.of(file)).call();
    String errors = diagnostics.getDiagnostics().stream()
        .filter(d -> d.getKind() == Diagnostic.Kind.ERROR)
        .map(d -> "line " + d.getLineNumber() + ": " + d.getMessage(null))
        .collect(Collectors.joining("\n"));
    return ok || !errors.isEmpty() ? errors : "javac failed without an error";
  }

  private static String tempDir() {
    try {
      return Files.createTempDirectory("readme-snippets").toString();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
