package io.txmsg.examples.boot;

import org.springframework.data.jpa.repository.JpaRepository;

/** The payments (Spring Data JPA). */
public interface PaymentRepository extends JpaRepository<Payment, String> {}
