package dev.workqueue.kubernetes;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A strict reader of the Prometheus text exposition format 0.0.4, as a scraper reads it: every
 * line a {@code # HELP}, a {@code # TYPE}, a comment or a sample; every sample under the {@code
 * # TYPE} of its family (its name the family's, or with the suffix its type allows); names,
 * label names, quoted label values (with their escapes) and values as the format defines them;
 * the text ends with a newline. Anything else throws, naming the line. No Prometheus client
 * library ships a parser for this format (client_java 1.x writes it only), hence this one.
 */
final class PrometheusText {
  private static final Pattern NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
  private static final Pattern LABEL = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");
  private static final Set<String> TYPES =
      Set.of("counter", "gauge", "histogram", "summary", "untyped");

  /** One sample: its name, labels (in order) and value. */
  record Sample(String name, Map<String, String> labels, double value) {}

  /** A metric family: its type, help text and samples. */
  record Family(String name, String type, String help, List<Sample> samples) {}

  private PrometheusText() {}

  /**
   * Parses {@code text}.
   *
   * @return the families by name, in order
   * @throws IllegalArgumentException naming the line that breaks the format
   */
  static Map<String, Family> parse(String text) {
    if (!text.isEmpty() && !text.endsWith("\n")) {
      throw new IllegalArgumentException("the text does not end with a newline");
    }
    Map<String, Family> families = new LinkedHashMap<>();
    Map<String, String> help = new LinkedHashMap<>();
    Family current = null;
    String[] lines = text.split("\n", -1);
    for (int i = 0; i < lines.length - 1; i++) {
      String line = lines[i];
      try {
        if (line.startsWith("# HELP ") || line.startsWith("# TYPE ")) {
          String[] parts = line.substring(7).split(" ", 2);
          name(parts[0], NAME);
          String rest = parts.length == 2 ? parts[1] : "";
          if (line.startsWith("# HELP ")) {
            if (help.put(parts[0], rest) != null) {
              throw new IllegalArgumentException("a second HELP for " + parts[0]);
            }
            continue;
          }
          if (!TYPES.contains(rest)) {
            throw new IllegalArgumentException("unknown type " + rest);
          }
          if (families.containsKey(parts[0])) {
            throw new IllegalArgumentException("a second TYPE for " + parts[0]);
          }
          current = new Family(parts[0], rest, help.getOrDefault(parts[0], ""), new ArrayList<>());
          families.put(parts[0], current);
        } else if (line.startsWith("#") || line.isBlank()) {
          continue; // a comment
        } else {
          Sample s = sample(line);
          if (current == null || !belongs(s.name(), current)) {
            throw new IllegalArgumentException("a sample outside its family's TYPE");
          }
          current.samples().add(s);
        }
      } catch (RuntimeException e) {
        throw new IllegalArgumentException("line " + (i + 1) + " \"" + line + "\": "
            + e.getMessage(), e);
      }
    }
    return families;
  }

  private static boolean belongs(String sample, Family f) {
    if (sample.equals(f.name())) {
      return true;
    }
    if (!sample.startsWith(f.name())) {
      return false;
    }
    String suffix = sample.substring(f.name().length());
    return switch (f.type()) {
      case "histogram" -> Set.of("_bucket", "_count", "_sum", "_created").contains(suffix);
      case "summary" -> Set.of("_count", "_sum", "_created").contains(suffix);
      case "counter" -> suffix.equals("_created");
      default -> false;
    };
  }

  private static Sample sample(String line) {
    int i = 0;
    while (i < line.length() && line.charAt(i) != '{' && line.charAt(i) != ' ') {
      i++;
    }
    String name = name(line.substring(0, i), NAME);
    Map<String, String> labels = new LinkedHashMap<>();
    if (i < line.length() && line.charAt(i) == '{') {
      i++;
      while (line.charAt(i) != '}') {
        int eq = line.indexOf('=', i);
        String label = name(line.substring(i, eq), LABEL);
        if (line.charAt(eq + 1) != '"') {
          throw new IllegalArgumentException("label value not quoted");
        }
        StringBuilder value = new StringBuilder();
        int j = eq + 2;
        for (; line.charAt(j) != '"'; j++) {
          char c = line.charAt(j);
          if (c == '\\') {
            char next = line.charAt(++j);
            switch (next) {
              case '\\', '"' -> value.append(next);
              case 'n' -> value.append('\n');
              default -> throw new IllegalArgumentException("bad escape \\" + next);
            }
          } else {
            value.append(c);
          }
        }
        if (labels.put(label, value.toString()) != null) {
          throw new IllegalArgumentException("label " + label + " twice");
        }
        i = j + 1;
        if (line.charAt(i) == ',') {
          i++;
        } else if (line.charAt(i) != '}') {
          throw new IllegalArgumentException("expected , or } at " + i);
        }
      }
      i++;
    }
    if (i >= line.length() || line.charAt(i) != ' ') {
      throw new IllegalArgumentException("no value");
    }
    String[] rest = line.substring(i + 1).split(" ", -1);
    if (rest.length > 2) {
      throw new IllegalArgumentException("more than a value and a timestamp");
    }
    if (rest.length == 2) {
      Long.parseLong(rest[1]);
    }
    return new Sample(name, labels, value(rest[0]));
  }

  private static double value(String s) {
    return switch (s) {
      case "+Inf" -> Double.POSITIVE_INFINITY;
      case "-Inf" -> Double.NEGATIVE_INFINITY;
      case "NaN" -> Double.NaN;
      default -> {
        if (!s.matches("[-+]?[0-9.]+([eE][-+]?[0-9]+)?")) {
          throw new IllegalArgumentException("not a value: " + s);
        }
        yield Double.parseDouble(s);
      }
    };
  }

  private static String name(String s, Pattern p) {
    if (!p.matcher(s).matches()) {
      throw new IllegalArgumentException("not a valid name: \"" + s + "\"");
    }
    return s;
  }
}
