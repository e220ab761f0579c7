package dev.workqueue.kubernetes.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** The run's choice of API servers, read from the system property. */
class ApiServerChoiceTest {

  @Test
  void unset_meansTheMockOnly() {
    assertEquals(Set.of("mock"), with(null, ApiServerChoice::named));
    assertFalse(with(null, ApiServerChoice::real));
  }

  @Test
  void theProfilesValue_namesTheRealServerOnly() {
    assertEquals(Set.of("real"), with("real", ApiServerChoice::named));
    assertTrue(with("real", ApiServerChoice::real));
  }

  @Test
  void both_inAnyCaseAndSpacing() {
    assertEquals(Set.of("mock", "real"), with(" Mock, REAL ", ApiServerChoice::named));
    assertTrue(with("mock,real", ApiServerChoice::real));
  }

  @Test
  void anUnknownServer_isAnErrorNamingThePropertyAndTheName() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> with("mock,rael", ApiServerChoice::real));
    assertTrue(e.getMessage().contains(ApiServerChoice.PROPERTY + "=mock,rael"), e.getMessage());
    assertTrue(e.getMessage().contains("\"rael\""), e.getMessage());
  }

  /** {@code read} with the property set to {@code value} (cleared if null), then restored. */
  private static <R> R with(String value, Supplier<R> read) {
    String before = System.getProperty(ApiServerChoice.PROPERTY);
    set(value);
    try {
      return read.get();
    } finally {
      set(before);
    }
  }

  private static void set(String value) {
    if (value == null) {
      System.clearProperty(ApiServerChoice.PROPERTY);
    } else {
      System.setProperty(ApiServerChoice.PROPERTY, value);
    }
  }
}
