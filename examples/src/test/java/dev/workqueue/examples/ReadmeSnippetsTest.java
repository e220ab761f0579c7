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
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every {@code ```java} block of the README compiles against the toolkit as built: each is
 * put in a method of its own class, beside the names a snippet uses without declaring them (the
 * user's own code: {@code reconcile}, {@code meterRegistry}...) and the toolkit's packages
 * imported. A snippet's own {@code import} lines go to the top; a line {@code ...} is left out
 * and {@code (...)} stands for an argument of any type.
 * A snippet that calls something the toolkit does not have fails here.
 */
class ReadmeSnippetsTest {
  private static final String IMPORTS = String.join("\n",
      "import dev.workqueue.*;",
      "import dev.workqueue.clock.*;",
      "import dev.workqueue.controller.*;",
      "import dev.workqueue.ratelimit.*;",
      "import dev.workqueue.scheduling.*;",
      "import dev.workqueue.metrics.micrometer.*;",
      "import io.micrometer.core.instrument.MeterRegistry;",
      "import java.time.*;",
      "import java.util.*;");

  /** What the snippets leave to the user. */
  private static final String USER_CODE = String.join("\n",
      "  static <X> X any() { return null; }",
      "  void syncConfigMap(String key) {}",
      "  void reconcile(String key) throws Exception {}",
      "  String namespace;",
      "  String name;",
      "  MeterRegistry meterRegistry;",
      "  RateLimiter<String> limiter;",
      "  record Job(String id) {}");

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
  Stream<DynamicTest> everyJavaSnippetCompiles() throws IOException {
    List<String> snippets = snippets();
    assertTrue(snippets.size() >= 6, "the README's java snippets, found " + snippets.size());
    List<DynamicTest> tests = new ArrayList<>();
    for (int i = 0; i < snippets.size(); i++) {
      String snippet = snippets.get(i);
      String name = "Snippet" + (i + 1);
      String first = snippet.lines().findFirst().orElse("").trim();
      tests.add(dynamicTest(name + ": " + first, () -> assertCompiles(name, snippet)));
    }
    return tests.stream();
  }

  private static void assertCompiles(String className, String snippet) {
    String imports = snippet.lines()
        .filter(l -> l.startsWith("import "))
        .collect(Collectors.joining("\n"));
    String body = snippet.lines()
        .filter(l -> !l.trim().equals("...") && !l.startsWith("import "))
        .map(l -> l.replace("(...)", "(any())"))
        .map(l -> "    " + l)
        .collect(Collectors.joining("\n"));
    String source = IMPORTS + "\n" + imports + "\n\nclass " + className + " {\n" + USER_CODE
        + "\n\n  @SuppressWarnings(\"unused\")\n  void run() throws Exception {\n" + body
        + "\n  }\n}\n";
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    JavaFileObject file = new SimpleJavaFileObject(
        URI.create("string:///" + className + ".java"), JavaFileObject.Kind.SOURCE) {
      @Override
      public CharSequence getCharContent(boolean ignoreEncodingErrors) {
        return source;
      }
    };
    List<String> options = List.of("-proc:none", "-d", tempDir(),
        "-classpath", System.getProperty("java.class.path"));
    boolean ok = javac.getTask(null, null, diagnostics, options, null, List.of(file)).call();
    String errors = diagnostics.getDiagnostics().stream()
        .filter(d -> d.getKind() == Diagnostic.Kind.ERROR)
        .map(d -> "line " + d.getLineNumber() + ": " + d.getMessage(null))
        .collect(Collectors.joining("\n"));
    assertEquals("", errors, "README snippet does not compile:\n" + source);
    assertTrue(ok);
  }

  private static String tempDir() {
    try {
      return Files.createTempDirectory("readme-snippets").toString();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
