package io.txmsg.boot.jpa;

import org.springframework.data.jpa.repository.JpaRepository;

/** The consumer handler's Spring Data JPA repository. */
public interface JpaAppliedRepository extends JpaRepository<JpaApplied, String> {
  long countByEventId(String eventId);
}
