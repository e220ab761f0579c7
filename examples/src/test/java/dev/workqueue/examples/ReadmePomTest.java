package dev.workqueue.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The pom of the README's "Depending on it" is a whole project that builds on Maven 3.8
 * (whose default compiler plugin is too old for {@code maven.compiler.release} and compiles
 * for Java 5) and has an SLF4J binding, and CI's consumer project ({@code .ci/consumer}) has
 * everything it has: the same properties, dependencies and plugins at the same versions.
 */
class ReadmePomTest {

  @Test
  void theReadmePom_isAWholeProjectForJava17_withALoggingBinding() throws Exception {
    Element pom = readmePom();
    assertEquals("project", pom.getTagName());
    assertEquals("4.0.0", text(pom, "modelVersion"));
    Map<String, String> properties = properties(pom);
    assertEquals("17", properties.get("maven.compiler.release"), properties.toString());
    assertTrue(plugins(pom, properties).contains(
        "org.apache.maven.plugins:maven-compiler-plugin:3.14.0"), "its version pinned");
    assertTrue(dependencies(pom, "dependencies", properties).stream()
        .anyMatch(d -> d.startsWith("org.slf4j:slf4j-simple:")), "a binding");
  }

  @Test
  void ciBuildsWhatTheReadmeShows() throws Exception {
    Element readme = readmePom();
    Element ci = parse(Files.readString(root().resolve(".ci/consumer/pom.xml")));
    Map<String, String> readmeProperties = properties(readme);
    Map<String, String> ciProperties = properties(ci);
    for (String section : new String[] {"dependencyManagement", "dependencies"}) {
      Set<String> inCi = dependencies(ci, section, ciProperties);
      for (String d : dependencies(readme, section, readmeProperties)) {
        assertTrue(inCi.contains(d), section + ": " + d + " of the README in CI's " + inCi);
      }
    }
    Set<String> ciPlugins = plugins(ci, ciProperties);
    for (String p : plugins(readme, readmeProperties)) {
      assertTrue(ciPlugins.contains(p), p + " in " + ciPlugins);
    }
    readmeProperties.forEach((k, v) -> assertEquals(v, ciProperties.get(k), k));
  }

  private static Path root() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.exists(dir.resolve("README.md")) && Files.exists(dir.resolve(".ci"))) {
        return dir;
      }
    }
    throw new AssertionError("no README.md above " + Path.of("").toAbsolutePath());
  }

  /** The first {@code ```xml} block after the heading "Depending on it". */
  private static Element readmePom() throws Exception {
    String readme = Files.readString(root().resolve("README.md"));
    int section = readme.indexOf("### Depending on it");
    assertTrue(section >= 0, "the section Depending on it");
    int start = readme.indexOf("```xml\n", section) + "```xml\n".length();
    return parse(readme.substring(start, readme.indexOf("```", start)));
  }

  private static Element parse(String xml) throws Exception {
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setNamespaceAware(false);
    return factory.newDocumentBuilder()
        .parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)))
        .getDocumentElement();
  }

  private static Element child(Element parent, String name) {
    for (Node n = parent == null ? null : parent.getFirstChild(); n != null;
        n = n.getNextSibling()) {
      if (n instanceof Element e && e.getTagName().equals(name)) {
        return e;
      }
    }
    return null;
  }

  private static String text(Element parent, String name) {
    Element e = child(parent, name);
    return e == null ? null : e.getTextContent().trim();
  }

  private static Map<String, String> properties(Element pom) {
    Map<String, String> properties = new TreeMap<>();
    Element p = child(pom, "properties");
    for (Node n = p == null ? null : p.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e) {
        properties.put(e.getTagName(), e.getTextContent().trim());
      }
    }
    return properties;
  }

  private static String resolve(String value, Map<String, String> properties) {
    if (value != null && value.startsWith("${") && value.endsWith("}")) {
      return properties.getOrDefault(value.substring(2, value.length() - 1), value);
    }
    return value;
  }

  /** groupId:artifactId:version:type:scope of each dependency of {@code section}. */
  private static Set<String> dependencies(Element pom, String section,
      Map<String, String> properties) {
    Element list = child(pom, section);
    if (section.equals("dependencyManagement")) {
      list = child(list, "dependencies");
    }
    Set<String> found = new TreeSet<>();
    NodeList all = list == null ? null : list.getElementsByTagName("dependency");
    for (int i = 0; all != null && i < all.getLength(); i++) {
      Element d = (Element) all.item(i);
      found.add(text(d, "groupId") + ":" + text(d, "artifactId") + ":"
          + resolve(text(d, "version"), properties) + ":" + text(d, "type") + ":"
          + text(d, "scope"));
    }
    return found;
  }

  /** groupId:artifactId:version of each build plugin. */
  private static Set<String> plugins(Element pom, Map<String, String> properties) {
    Set<String> found = new TreeSet<>();
    Element plugins = child(child(pom, "build"), "plugins");
    NodeList all = plugins == null ? null : plugins.getElementsByTagName("plugin");
    for (int i = 0; all != null && i < all.getLength(); i++) {
      Element p = (Element) all.item(i);
      found.add(text(p, "groupId") + ":" + text(p, "artifactId") + ":"
          + resolve(text(p, "version"), properties));
    }
    return found;
  }
}
