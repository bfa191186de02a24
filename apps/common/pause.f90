! The module app_pause of the Fortran programs (apps/jacobi-f, bench/lang,
! tests/lang): pause_ms(ms) sleeps ms milliseconds, as app_delay does for
! the C examples. Fortran has no sleep of its own; POSIX usleep is called
! through BIND(C).
module app_pause
  use, intrinsic :: iso_c_binding, only: c_int, c_double
  implicit none
  private
  public :: pause_ms
  interface
    integer(c_int) function usleep(us) bind(c)
      import :: c_int
      integer(c_int), value :: us
    end function
  end interface
contains
  subroutine pause_ms(ms)
    real(c_double), intent(in) :: ms
    integer(c_int) :: rc
    if (ms > 0) rc = usleep(int(ms * 1000, c_int))
  end subroutine
end module app_pause
